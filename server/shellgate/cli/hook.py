"""`shellgate hook codex|claude-code|gemini|copilot`: the agent's hook event on stdin, its answer on
stdout in that agent's format. `shellgate hook install ...` and `shellgate hook doctor` set it
up and check it.

Never fails open: any internal error (bad stdin, broken rules, a bug) exits 2 with the reason on
stderr, which every agent treats as "blocked".
"""

from __future__ import annotations

import importlib
import json
import os
import sys

from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from shellgate.hooks.outcome import Options

PROG = "shellgate hook"
AGENTS = {
    "codex": "shellgate.hooks.codex",
    "claude-code": "shellgate.hooks.claude_code",
    "gemini": "shellgate.hooks.gemini",
    "copilot": "shellgate.hooks.copilot",
}
EXIT_BLOCK = 2
AGENT_NAMES = "|".join(AGENTS)
# The subcommands beside the agents (the CLI test enumerates these and AGENTS).
TOOLS = ("install", "uninstall", "doctor", "status")
SUBCOMMANDS = (*AGENTS, *TOOLS)
USAGE = f"""usage: {PROG} {AGENT_NAMES} [--approval-policy POLICY]
                      [--sandbox read-only|workspace-write|danger-full-access]
                      [--network off|full]
                      [--fallback ask|deny] [--ask-timeout SECONDS] [--deadline SECONDS]
                      [--approve-for-me]
       {PROG} install {AGENT_NAMES} [--scope user|project|managed]
                      [--sandbox read-only|workspace-write|danger-full-access]
                      [--network off|full] [--fallback ask|deny] [--approval-policy POLICY]
                      [--deadline SECONDS] [--project DIR] [--codex-home DIR] [--uninstall]
       {PROG} uninstall {AGENT_NAMES} [--scope user|project|managed]
                      [--project DIR] [--codex-home DIR]
       {PROG} doctor [{AGENT_NAMES} ...]
       {PROG} status [--json] [--project DIR]

`{PROG} install --help` (and doctor, status) for their options.

Reads the agent's hook event (JSON) on stdin and answers in that agent's format.
  --approval-policy  Codex's approval policy for the chain (default: Codex's config files',
                     then on-request)
  --sandbox MODE     Claude Code, Gemini: rewrite allowed commands to run in ShellGate's
                     sandbox (`shellgate sandbox --mode MODE -- bash -lc CMD`; `hook install`
                     writes workspace-write unless told otherwise). Without it, or with
                     danger-full-access, or where the sandbox cannot run, a command no rule
                     allows and that is not read-only is asked (the editor, else the fallback)
  --network MODE     the sandbox's network (default off)
  --fallback         when a command needs approval and no editor is reachable: ask (the
                     agent's own prompt; Claude Code's default) or deny (Gemini's default:
                     its ask hangs `gemini -p`); also $SHELLGATE_HOOK_FALLBACK
  --ask-timeout S    how long the editor's dialog may take (default 300); unanswered = no
  --deadline S       Copilot: answer no after S seconds whatever is pending (default 315,
                     below the 330 s timeout `hook install copilot` gives the hosts, which
                     run the command when a hook overruns)
  --approve-for-me   Claude Code, Gemini, Copilot: a question goes to Codex's auto-reviewer
                     (the model of Codex's config.toml) instead of a person, as
                     approvals_reviewer = "auto_review" in config.toml does; a failed or
                     slow review refuses the command
Exit 0 with the answer on stdout, or 2 with the reason on stderr (blocked)."""

_DEFAULT_DEADLINE = {"copilot": "315"}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else EXIT_BLOCK
    # Imported here, not above: a hook (the hot path) needs none of these.
    if argv[0] in ("install", "uninstall"):
        # deferred: `hook install` only
        from shellgate.hooks.install_command import install_main

        rest = argv[1:]
        return install_main([*rest, "--uninstall"] if argv[0] == "uninstall" else rest)
    if argv[0] == "status":
        # deferred: `hook status` only
        from shellgate.hooks.status import main as status_main

        return status_main(argv[1:])
    if argv[0] == "doctor":
        # deferred: `hook doctor` only (~45 ms)
        from shellgate.hooks import doctor

        status: int = doctor.main(argv[1:])
        return status
    agent = argv[0]
    if agent not in AGENTS:
        # A person mistyping a command gets the usage; an agent whose hook names no agent we
        # know gets its command blocked (exit 2 either way).
        asked_for_help = any(a in ("-h", "--help") for a in argv[1:])
        print(
            f"{PROG}: error: unknown agent or command {agent!r} (agents: {', '.join(AGENTS)}; "
            f"commands: {', '.join(TOOLS)})"
            + ("" if asked_for_help else ": blocked"),
            file=sys.stderr,
        )
        if asked_for_help:
            print(USAGE, file=sys.stderr)
        return EXIT_BLOCK
    if any(a in ("-h", "--help") for a in argv[1:]):
        # A person asking; a hook configured with it would otherwise run without a decision.
        print(f"{PROG} {agent}: --help is not a hook option: blocked\n\n{USAGE}", file=sys.stderr)
        return EXIT_BLOCK
    try:
        return _run(agent, argv[1:])
    except BaseException as exc:  # a hook that crashes would fail open
        what = str(exc) or type(exc).__name__
        print(
            f"{PROG} {agent}: {what}: blocked (ShellGate could not decide, so the command "
            "was not let through)",
            file=sys.stderr,
        )
        return EXIT_BLOCK


def _options(agent: str, args: list[str]) -> Options:

    # deferred: hooks.outcome (~4 ms) is for a hook run, not install, status, doctor or --help
    from shellgate.hooks.outcome import (
        DEFAULT_FALLBACK,
        NO_SANDBOX,
        SANDBOXES,
        Fallback,
        HookInputError,
        Options,
        fallback_from,
    )

    values: dict[str, str] = {}
    known = (
        "--approval-policy", "--sandbox", "--network", "--fallback", "--ask-timeout", "--deadline"
    )
    i = 0
    approve_for_me = False
    while i < len(args):
        if args[i] == "--approve-for-me":  # a switch: questions go to Codex's reviewer
            approve_for_me = True
            i += 1
            continue
        flag, _, value = args[i].partition("=")
        if flag not in known:
            raise HookInputError(f"unknown option {args[i]!r} (see `{PROG} --help`)")
        if not _:
            i += 1
            if i >= len(args):
                raise HookInputError(f"{flag} needs a value")
            value = args[i]
        values[flag] = value
        i += 1
    sandbox = values.get("--sandbox")
    if sandbox == NO_SANDBOX:
        sandbox = None
    elif sandbox is not None and sandbox not in SANDBOXES:
        raise HookInputError(
            f"--sandbox must be {', '.join(SANDBOXES)} or {NO_SANDBOX}, not {sandbox!r}"
        )
    network = values.get("--network")
    if network is not None and network not in ("off", "full"):
        raise HookInputError(f"--network must be off or full, not {network!r}")
    try:
        timeout = float(values.get("--ask-timeout", "300"))
    except ValueError:
        raise HookInputError("--ask-timeout needs a number of seconds") from None
    raw_deadline = values.get("--deadline", _DEFAULT_DEADLINE.get(agent))
    try:
        deadline = None if raw_deadline is None else float(raw_deadline)
    except ValueError:
        raise HookInputError("--deadline needs a number of seconds") from None
    if deadline is not None and not deadline > 0:
        raise HookInputError("--deadline must be above 0 seconds")
    return Options(
        fallback=fallback_from(
            values.get("--fallback"), os.environ, Fallback(DEFAULT_FALLBACK[agent])
        ),
        approval_policy=values.get("--approval-policy"),
        sandbox=sandbox,
        sandbox_given="--sandbox" in values,
        network=network,
        ask_timeout=timeout,
        deadline=deadline,
        approve_for_me=approve_for_me,
    )


def _run(agent: str, args: list[str]) -> int:
    # deferred: hooks.outcome (~4 ms) is for a hook run, not install, status, doctor or --help
    from shellgate.hooks.outcome import HookInputError

    options = _options(agent, args)
    raw = sys.stdin.buffer.read()
    try:
        event = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        # deferred: config_edit's position helper, only for input this broken
        from shellgate.config_edit import not_utf8_at

        line, column = not_utf8_at(raw, exc.start).split(":")
        raise HookInputError(
            f"stdin is not UTF-8 (byte 0x{raw[exc.start]:02x} at line {line}, column {column}): "
            "not the JSON hook event the agent sends") from None
    except ValueError as exc:
        raise HookInputError(f"stdin is not the JSON hook event the agent sends ({exc})") from None
    if not isinstance(event, dict):
        raise HookInputError("stdin is JSON but not an object: not a hook event")
    answer = importlib.import_module(AGENTS[agent]).handle(event, options)
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 0
