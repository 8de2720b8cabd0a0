"""What the chain's verdict means for an agent that knows nothing of Codex's rules (Claude Code,
Gemini CLI): allowed, blocked with a reason for the model, or left to the agent's own prompt.

Needs approval goes to the editor; with no editor reachable the configured fallback applies:
`ask` (the agent's own prompt) or `deny` (blocked, saying why). There is no allowing fallback.

Never looser than the agent alone: Codex runs a command no rule matched unasked because its
sandbox confines it. Here that holds only when ShellGate's sandbox rewrite is on and the sandbox
can run; otherwise a command that no rule allows and that is not read-only (Codex's known-safe
list) needs approval, as it would in the agent without ShellGate.
"""

from __future__ import annotations

import enum
import sys
import time
from collections.abc import Mapping

from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from typing import Any

import os

from shellgate.codexconfig import SYSTEM_FOLDER, codex_home_folder
from shellgate.hooks import seam

FALLBACK_ENV = "SHELLGATE_HOOK_FALLBACK"
# the admin's Codex hooks live there: requirements.toml [hooks], hooks.json, config.toml
ADMIN_FILES = tuple(f"{SYSTEM_FOLDER}/{f}" for f in ("requirements.toml", "hooks.json",
                                                     "config.toml"))  # fmt: skip
SANDBOXES = ("read-only", "workspace-write")
NO_SANDBOX = "danger-full-access"  # no rewrite: what no rule allows is asked


class Verdict(enum.Enum):
    ALLOW = "allow"
    BLOCK = "block"
    AGENT_ASKS = "ask"  # the agent's own prompt decides


class Fallback(enum.Enum):
    ASK = "ask"
    DENY = "deny"


# each agent's fallback when neither --fallback nor $SHELLGATE_HOOK_FALLBACK says
DEFAULT_FALLBACK = {"codex": "ask", "claude-code": "ask", "gemini": "deny", "copilot": "ask"}


class HookInputError(ValueError):
    """The agent's event is not what its hook protocol promises."""


class Options(Record):  # records, not dataclasses: those would import inspect on the hot path
    fallback: Fallback
    approval_policy: str | None = None  # None: Codex's config files, then on-request
    sandbox: str | None = None  # rewrite allowed commands to run in this sandbox mode (None: no)
    sandbox_given: bool = False  # --sandbox was in the hook's command (else none is the default)
    network: str | None = None
    ask_timeout: float = 300.0
    deadline: float | None = None  # Copilot: answer "no" this many seconds in, come what may
    approve_for_me: bool = False  # questions go to Codex's auto-reviewer (or its config says so)


class Resolution(Record):
    verdict: Verdict
    reason: str  # for the model (block, ask) or the log (allow)
    command: str | None = None  # the rewritten command, when it changed


def fallback_from(flag: str | None, env: Mapping[str, str], default: Fallback) -> Fallback:
    """`--fallback` wins over $SHELLGATE_HOOK_FALLBACK; an unknown value is an error, never a
    silent default."""
    raw = flag if flag is not None else env.get(FALLBACK_ENV) or None
    if raw is None:
        return default
    try:
        return Fallback(raw)
    except ValueError:
        raise HookInputError(
            f"{FALLBACK_ENV}/--fallback must be ask or deny, not {raw!r}"
        ) from None


def event_field(event: Mapping[str, Any], *keys: str) -> Any:
    """event[keys[0]][keys[1]]..., or HookInputError naming what is missing."""
    value: Any = event
    for i, key in enumerate(keys):
        if not isinstance(value, Mapping) or key not in value:
            raise HookInputError(f"the event has no {'.'.join(keys[: i + 1])}")
        value = value[key]
    return value


def command_of(event: Mapping[str, Any]) -> str:
    command = event_field(event, "tool_input", "command")
    if not isinstance(command, str) or not command.strip():
        raise HookInputError("tool_input.command is not a non-empty string")
    return command


def resolve(
    request: seam.AgentRequest, options: Options, agent_name: str,
    transcript: str | None = None,
) -> Resolution:  # fmt: skip
    """Who answers (`_answered`), then the decision is recorded (shellgate.record) before the
    hook answers."""
    started = time.monotonic()
    res = _answered(request, options, agent_name, transcript)
    # deferred: the record (~2 ms: the log's append, the spool when [otel] exports)
    from shellgate.record.build import from_hook
    from shellgate.record.sink import record

    record(from_hook(request, res.verdict.value, res.reason, seam.trail, started,
                     sandbox=_sandbox_used(res, options, seam.trail)))  # fmt: skip
    return res


def _sandbox_used(res: Resolution, options: Options, trail: Mapping[str, Any]) -> str:
    decision = trail.get("decision")
    if res.command is None or decision is None:
        return "none"
    return _sandbox_of(options, decision) or "none"


def _answered(
    request: seam.AgentRequest, options: Options, agent_name: str,
    transcript: str | None = None,
) -> Resolution:  # fmt: skip
    """The admin's Codex hooks first (they may refuse or rewrite it), then the chain decides;
    a command needing approval goes to the admin's PermissionRequest hooks, then the editor,
    else the fallback."""
    admin = _admin_hooks(request, agent_name)
    if isinstance(admin, str):  # a broken admin hooks file: nothing runs on a half-read policy
        seam.trail.update(answerer="hook", hook_event="PreToolUse")
        return Resolution(Verdict.BLOCK, admin)
    if admin is None:
        return _resolve(request, options, agent_name, None, transcript=transcript)
    # deferred: the answerers (~5 ms) only on a machine whose admin declared Codex hooks
    from shellgate.answer.for_agents import before

    script = request.command if isinstance(request.command, str) else shlex_join(request.command)
    found = before(admin, script, request.cwd)
    if found.blocked is not None:
        seam.trail.update(answerer="hook", hook_event="PreToolUse")
        return Resolution(Verdict.BLOCK, found.told(script))
    if found.command is not None:
        request = request._replace(command=found.command)
    res = _resolve(request, options, agent_name, admin, asked=found.ask, transcript=transcript)
    if found.command is not None and res.verdict is Verdict.ALLOW and res.command is None:
        return res._replace(command=found.command)  # the agent runs the admin's rewrite
    return res


def _admin_hooks(request: seam.AgentRequest, agent_name: str) -> Any:
    """The admin's Codex hooks (`answer.for_agents`), None without any, or why they do not
    load (a str): a read of each small file that exists; TOML is parsed only when one
    mentions hooks (the remembered-decision path stays fast on a machine whose admin tier has
    none)."""
    if not any(_mentions(path, b"hooks") for path in ADMIN_FILES):
        return None
    # deferred: the answerers (~5 ms) only on a machine with an admin tier
    from shellgate.answer.for_agents import admin_hooks
    from shellgate.rules.errors import RulesError

    try:
        return admin_hooks(request.session_id, agent_name)
    except RulesError as err:  # Codex would not start (requirements.toml), or ShellGate
        # cannot read the admin's hooks file: every command is refused, saying why
        return f"the admin's Codex hooks do not load, so nothing runs: {err}"


def _mentions_review(cwd: str) -> bool:
    """Whether a config file Codex may read for `cwd` (the admin's, the user's, any project's
    `.codex/config.toml` up from it: a superset of the trusted ones) mentions a reviewer
    (`approvals_reviewer`, `[auto_review]`); without one Codex's answer is "user" and the
    reviewer's modules (~75 ms) stay unloaded."""
    paths = [f"{SYSTEM_FOLDER}/config.toml", os.path.join(codex_home_folder(), "config.toml")]
    folder = os.path.abspath(cwd)
    while True:
        paths.append(os.path.join(folder, ".codex", "config.toml"))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return any(_mentions(path, b"review") for path in paths)


def _mentions(path: str, word: bytes) -> bool:
    """Whether the file exists and holds `word` (a JSON file, all of it: hooks.json)."""
    try:
        with open(path, "rb") as f:
            return path.endswith(".json") or word in f.read()
    except OSError:
        return False


def shlex_join(words: tuple[str, ...]) -> str:
    import shlex  # deferred: 0.3 ms the common path does without

    return shlex.join(words)


def _resolve(
    request: seam.AgentRequest, options: Options, agent_name: str, admin: Any,
    asked: str | None = None, transcript: str | None = None,
) -> Resolution:  # fmt: skip
    decision = seam.decide(request)  # ShellGate's: every command bash runs is judged
    if decision.decision == "forbidden":
        return Resolution(Verdict.BLOCK, f"ShellGate: {decision.reason}")
    if asked is not None and decision.decision == "allow":  # a hook failed: a person decides
        decision = decision._replace(decision="prompt", reason=asked)
    if decision.decision == "allow":
        confine = decision.confine  # broker.decide: every command bash runs, looked at
        unconfined = _unconfined(confine, _sandbox_of(options, decision), agent_name,
                                 given=options.sandbox_given)  # fmt: skip
        if unconfined is None:
            return _allowed(
                request, options, decision, "ShellGate: no approval needed under Codex's rules",
                confine=confine,
            )
        decision = decision._replace(decision="prompt", reason=unconfined)
    if asked is None and decision.person_only:  # the admin's prompt-user: a person only
        # deferred: as in resolve
        from shellgate.approval.answerers import PROMPT_USER

        asked = PROMPT_USER
    if asked is None and admin is not None:  # the admin's PermissionRequest hooks answer
        # deferred: as in resolve
        from shellgate.answer.for_agents import permission
        from shellgate.approval.answerers import Answered

        script = request.command if isinstance(request.command, str) else shlex_join(
            request.command)  # fmt: skip
        said = permission(admin, script, request.cwd, request.justification)
        if isinstance(said, Answered) and said.answer.decision.approves:
            return _allowed(request, options, decision, "ShellGate: approved by the admin's "
                            "Codex PermissionRequest hook")  # fmt: skip
        if isinstance(said, Answered):
            return Resolution(Verdict.BLOCK, said.refusal)
    why = decision.reason or "the command needs approval under Codex's rules"
    if asked is None:  # Codex's reviewer, when it is on, answers instead of the person
        found = _reviewed(request, options, agent_name, why, transcript)
        if found is not None:
            reviewed, verdict = found
            if verdict is not None:
                _record_review(request, decision, {**verdict, "told": reviewed.said})
            if reviewed.answer.decision.approves:
                return _allowed(request, options, decision, "ShellGate: approved by Codex's "
                                f"auto-reviewer ({reviewed.source})")  # fmt: skip
            return Resolution(Verdict.BLOCK, reviewed.refusal)
    if decision.warnings:
        why += " (requirements: " + "; ".join(decision.warnings) + ")"
    answer = seam.ask(request, decision, timeout=options.ask_timeout)
    if answer is None:
        text = (
            f"ShellGate: {why}; no editor is reachable to approve it "
            f"(no ShellGate language server holds {request.cwd})"
        )
        if options.fallback is Fallback.ASK:
            return Resolution(Verdict.AGENT_ASKS, text)
        return Resolution(Verdict.BLOCK, text + ", so it was not run (the fallback is deny)")
    if answer.approved:
        note = "ShellGate: approved in the editor"
        if answer.amendment_written:
            note += f"; rule added: {answer.amendment_written}"
        return _allowed(request, options, decision, note)
    if answer.answer == "timeout":
        return Resolution(
            Verdict.BLOCK, f"ShellGate: not approved in time: {answer.message or why}"
        )
    words = f": {answer.message}" if answer.message else ""
    return Resolution(Verdict.BLOCK, f"ShellGate: the user declined {agent_name}'s command{words}")


def _reviewed(
    request: seam.AgentRequest, options: Options, agent_name: str, why: str,
    transcript: str | None,
) -> Any:  # fmt: skip
    """The reviewer's answer (approval.answerers.Answered) and its verdict for the editor's
    history, None when no reviewer is on."""
    if not isinstance(request.command, str):
        return None
    if not options.approve_for_me and not _mentions_review(request.cwd):
        return None  # no config file Codex reads for the cwd names a reviewer: the person
    # deferred: the reviewer (~60 ms), only for a question where one may be on
    from shellgate.answer.for_agents import review
    from shellgate.approval.answerers import Answered, AnsweredBy
    from shellgate.approval.question import Answer
    from shellgate.approval.review import ReviewDecision
    from shellgate.rules.errors import RulesError

    try:
        found = review(request.command, request.cwd, request.justification, why,
                       agent=agent_name, session_id=request.session_id,
                       approval_policy=request.approval_policy,
                       approve_for_me=options.approve_for_me, transcript_path=transcript,
                       deadline_s=options.deadline)  # fmt: skip
    except RulesError as exc:  # a configuration Codex would refuse: nothing runs
        return Answered(Answer(ReviewDecision.DENIED), AnsweredBy.REVIEWER, None,
                        f"ShellGate: Codex's configuration does not load: {exc}"), None
    if found is None or found[0] is None:
        return None
    return found


def _record_review(
    request: seam.AgentRequest, decision: seam.AgentDecision, verdict: dict[str, Any]
) -> None:
    """The editor whose workspace holds the cwd keeps the reviewer's verdict in its approval
    history (Show Approvals); without an editor, nothing (best effort, 2 s at most)."""
    # deferred: the broker client, only once the reviewer answered
    from shellgate.broker.client import reviewed as tell_editor

    tell_editor(request, decision, verdict)


def _sandbox_of(options: Options, decision: seam.AgentDecision) -> str | None:
    """The sandbox the rewrite uses: the hook's, unless the admin's requirements clamped it."""
    return decision.sandbox or options.sandbox


def _unconfined(confine: bool, sandbox: str | None, agent_name: str, *,
                given: bool) -> str | None:  # fmt: skip
    """Why an allowed command must be asked after all (None: it may run unasked)."""
    if not confine:
        return None
    base = "no rule allows it and it is not read-only"
    if sandbox is None or sandbox == NO_SANDBOX:
        # Name the flag only when the hook was given it: an older install has none.
        how = f"--sandbox {NO_SANDBOX}" if given else "the hook's command has no --sandbox, " \
            "and without one there is none"  # fmt: skip
        return (
            f"{base}, and ShellGate runs commands without its sandbox here ({how}), so it is "
            f"asked, as {agent_name} alone would ask"
        )
    # deferred: hooks.confine (1-2 ms) only when the sandbox decides
    from shellgate.hooks.confine import sandbox_runs

    runs, why = sandbox_runs()
    if runs:
        return None
    return (
        f"{base}, and ShellGate's sandbox cannot run here ({why}), so it is asked, as "
        f"{agent_name} alone would ask"
    )


def _allowed(
    request: seam.AgentRequest, options: Options, decision: seam.AgentDecision, reason: str,
    *, confine: bool = False,
) -> Resolution:  # fmt: skip
    """Allowed: rewritten into the sandbox unless Codex runs it outside (every command a rule
    allows) and nothing else bash runs needs confining (`timeout 60 touch y`, `timeout`
    allowed: Codex would run it unsandboxed)."""
    if decision.warnings:
        reason += " (requirements: " + "; ".join(decision.warnings) + ")"
    sandbox = _sandbox_of(options, decision)
    # The admin's deny_read holds only inside the sandbox: with it, nothing runs outside one.
    denied = decision.deny_read
    if sandbox is None or not isinstance(request.command, str):
        return Resolution(Verdict.ALLOW, reason)
    if not confine and decision.outside and not denied:
        # Codex runs a command an allow rule covers outside its sandbox; so do we.
        return Resolution(Verdict.ALLOW, reason + " (unsandboxed, as Codex runs it)")
    # deferred: hooks.confine (1-2 ms) only when the sandbox decides
    from shellgate.hooks.confine import sandbox_runs

    runs, why = sandbox_runs()
    if not runs and denied:
        return Resolution(
            Verdict.BLOCK,
            f"ShellGate: the admin's deny_read needs ShellGate's sandbox, which cannot run here "
            f"({why})",
        )
    if not runs:  # read-only, or approved by the person: the rewrite would only fail
        return Resolution(Verdict.ALLOW, reason + f" (unsandboxed: {why})")
    wrapped = sandbox_command(request.command, sandbox, options.network, request.cwd)
    return Resolution(Verdict.ALLOW, reason + f" (in the {sandbox} sandbox)", wrapped)


def sandbox_command(script: str, mode: str, network: str | None, cwd: str) -> str:
    """`shellgate sandbox ... -- bash -lc SCRIPT` as one shell line, by this interpreter,
    isolated (no PATH lookup or `shellgate/` in the cwd a command could have planted). A hook
    started from bundled libraries (`env PYTHONPATH=LIBS python -s -P`, as `hook install`
    writes it for the VS Code extension's copy) names the same folder, or the sandbox would not
    start."""
    import shlex  # deferred: 0.3 ms the remembered-decision path does without

    package = os.path.abspath(sys.modules["shellgate"].__file__ or "")
    here = os.path.dirname(os.path.dirname(package))
    if here in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        launcher = ["/usr/bin/env", f"PYTHONPATH={here}", sys.executable, "-s", "-P"]
    else:
        launcher = [sys.executable, "-I"]
    argv = [*launcher, "-m", "shellgate", "sandbox", "--mode", mode, "--cwd", cwd]
    if network is not None:
        argv += ["--network", network]
    return shlex.join([*argv, "--", "bash", "-lc", script])
