"""Codex's `PreToolUse` and `PermissionRequest` hooks for `Bash`.

Codex applies the same `.rules` itself, so ShellGate adds only what it lacks. PreToolUse
blocks a command whose split hides a command bash would run (a keyword such as `time`/`coproc`
read as a command), a command where ShellGate requires more than Codex (a command bash runs
that a rule forbids or asks about, behind a wrapper, `sh -c`, an escape or a pipe into a shell;
or one bash decides only at run time: approval.beyond), and any command while the rules on
disk do not load (Codex keeps the ones it read at start); it is quiet otherwise
(`allow`/`ask` are unsupported there). PermissionRequest hands Codex's
approval to the editor's dialog: allow, or deny with the user's words; quiet when no editor
is reachable, so Codex asks as usual.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

from shellgate.hooks import seam
from shellgate.hooks.outcome import HookInputError, Options, command_of, event_field

AGENT = "codex"


def handle(event: Mapping[str, Any], options: Options) -> dict[str, Any] | None:
    """The answer, or None for "quiet" (nothing on stdout: Codex goes on as usual). What
    ShellGate answered is recorded (shellgate.record); a quiet answer leaves it to Codex."""
    started = time.monotonic()
    answer = _handle(event, options)
    if answer is not None:
        # deferred: the record (~2 ms), only when ShellGate answered
        from shellgate.record.build import from_codex_hook
        from shellgate.record.sink import record

        record(from_codex_hook(event, answer, seam.trail, started))
    return answer


def _handle(event: Mapping[str, Any], options: Options) -> dict[str, Any] | None:
    name = event_field(event, "hook_event_name")
    if name not in ("PreToolUse", "PermissionRequest"):
        raise HookInputError(f"hook_event_name {name!r} is not PreToolUse or PermissionRequest")
    if event_field(event, "tool_name") != "Bash":
        return None
    tool_input = event_field(event, "tool_input")
    request = seam.AgentRequest(
        agent=AGENT,
        session_id=event.get("session_id"),
        cwd=str(event_field(event, "cwd")),
        command=command_of(event),
        justification=tool_input.get("description"),
        approval_policy=options.approval_policy,
    )
    if name == "PreToolUse":
        decision = seam.decide(request)
        if decision.explain is None:
            reason = f"ShellGate: {decision.reason}"
        elif decision.split:  # Codex's split and bash disagree: say what bash runs, and why
            runs = ", ".join(f"`{c}`" for c in decision.bash_runs) or "other commands"
            reason = (f"ShellGate: bash runs {runs}, which Codex's rules do not see: "
                      f"{decision.split}")  # fmt: skip
        elif decision.hidden and decision.decision == "forbidden":
            reason = f"ShellGate: {decision.reason}"  # a command bash runs inside is forbidden
        elif decision.hidden:  # asked beyond Codex; this hook cannot ask, Codex would not
            reason = (
                f"ShellGate: {decision.reason}; run it as plain commands (no wrapper, inline "
                "script or run-time command name) so that the rules judge what runs"
            )
        else:
            return None
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    decision = seam.decide(request)
    if decision.decision == "forbidden":  # only ShellGate's: Codex asks about no such command
        out: dict[str, Any] = {"behavior": "deny", "message": f"ShellGate: {decision.reason}"}
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": out}}
    if decision.decision == "allow":  # Codex asks all the same (its sandbox, an escalation)
        decision = decision._replace(decision="prompt", reason="Codex asks before running it")
    answer = seam.ask(request, decision, timeout=options.ask_timeout)
    if answer is None:
        return None
    if answer.approved:
        out = {"behavior": "allow"}
    elif answer.answer == "timeout":
        late = f": {answer.message}" if answer.message else ""
        out = {"behavior": "deny", "message": f"ShellGate: not approved in time{late}"}
    else:
        words = f": {answer.message}" if answer.message else ""
        out = {"behavior": "deny", "message": f"ShellGate: the user declined{words}"}
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": out}}
