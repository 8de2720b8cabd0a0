"""What the chain's verdict means for an agent that knows nothing of Codex's rules (Claude Code,
Gemini CLI): allowed, blocked with a reason for the model, or left to the agent's own prompt.

Needs approval goes to the editor; with no editor reachable the configured fallback applies:
`ask` (the agent's own prompt) or `deny` (blocked, saying why). There is no allowing fallback.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping

from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from typing import Any

from shellgate.hooks import seam

FALLBACK_ENV = "SHELLGATE_HOOK_FALLBACK"
SANDBOXES = ("read-only", "workspace-write")


class Verdict(enum.Enum):
    ALLOW = "allow"
    BLOCK = "block"
    AGENT_ASKS = "ask"  # the agent's own prompt decides


class Fallback(enum.Enum):
    ASK = "ask"
    DENY = "deny"


class HookInputError(ValueError):
    """The agent's event is not what its hook protocol promises."""


class Options(Record):  # records, not dataclasses: those would import inspect on the hot path
    fallback: Fallback
    approval_policy: str = "on-request"
    sandbox: str | None = None  # rewrite allowed commands to run in this sandbox mode
    network: str | None = None
    ask_timeout: float = 300.0
    deadline: float | None = None  # Copilot: answer "no" this many seconds in, come what may


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


def resolve(request: seam.AgentRequest, options: Options, agent_name: str) -> Resolution:
    """The chain decides; a command needing approval goes to the editor, else the fallback."""
    decision = seam.decide(request)  # ShellGate's: every command bash runs is judged
    if decision.decision == "forbidden":
        return Resolution(Verdict.BLOCK, f"ShellGate: {decision.reason}")
    if decision.decision == "allow":
        return _allowed(
            request, options, decision, "ShellGate: no approval needed under Codex's rules"
        )
    why = decision.reason or "the command needs approval under Codex's rules"
    answer = seam.ask(request, timeout=options.ask_timeout)
    if answer is None:
        text = (
            f"ShellGate: {why}; no editor is reachable to approve it "
            f"(no ShellGate language server holds {request.cwd})"
        )
        if options.fallback is Fallback.ASK:
            return Resolution(Verdict.AGENT_ASKS, text)
        return Resolution(Verdict.BLOCK, text + f", so it was not run ({FALLBACK_ENV}=deny)")
    if answer.answer in ("accept", "acceptForSession", "acceptWithExecpolicyAmendment"):
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


def _allowed(
    request: seam.AgentRequest, options: Options, decision: seam.AgentDecision, reason: str
) -> Resolution:
    if options.sandbox is None or not isinstance(request.command, str):
        return Resolution(Verdict.ALLOW, reason)
    first = (decision.explain or {}).get("first_attempt") or {}
    gate = (decision.explain or {}).get("gate") or {}  # bash runs a command no rule allows
    if first and not first.get("sandboxed", True) and gate.get("bypass_sandbox") is not False:
        # Codex runs a command an allow rule covers outside its sandbox; so do we.
        return Resolution(Verdict.ALLOW, reason + " (unsandboxed, as Codex runs it)")
    wrapped = sandbox_command(request.command, options.sandbox, options.network, request.cwd)
    return Resolution(Verdict.ALLOW, reason + f" (in the {options.sandbox} sandbox)", wrapped)


def sandbox_command(script: str, mode: str, network: str | None, cwd: str) -> str:
    """`shellgate sandbox ... -- bash -lc SCRIPT` as one shell line, by this interpreter,
    isolated (no PATH lookup or `shellgate/` in the cwd a command could have planted)."""
    import shlex

    argv = [sys.executable, "-I", "-m", "shellgate", "sandbox", "--mode", mode, "--cwd", cwd]
    if network is not None:
        argv += ["--network", network]
    return shlex.join([*argv, "--", "bash", "-lc", script])
