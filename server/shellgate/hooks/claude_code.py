"""Claude Code's `PreToolUse` and `PermissionRequest` hooks for `Bash`.

PreToolUse answers `permissionDecision` allow (runs without Claude's prompt; `updatedInput`
for the sandbox rewrite), deny (the reason is the tool result the model reads) or ask
(Claude's own prompt; in `-p` that is a denial with the reason). PermissionRequest answers
`decision.behavior` allow or deny; its "ask" is no decision, so Claude's prompt follows.
"""

from __future__ import annotations

from collections.abc import Mapping

from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

from shellgate.hooks import seam
from shellgate.hooks.outcome import (
    HookInputError,
    Options,
    Resolution,
    Verdict,
    command_of,
    event_field,
    resolve,
)

AGENT = "claude-code"
NAME = "Claude Code"
EVENTS = ("PreToolUse", "PermissionRequest")


def handle(event: Mapping[str, Any], options: Options) -> dict[str, Any]:
    name = event_field(event, "hook_event_name")
    if name not in EVENTS:
        raise HookInputError(f"hook_event_name {name!r} is not one of {', '.join(EVENTS)}")
    if event_field(event, "tool_name") != "Bash":
        return {}  # installed for Bash only: another tool is not ours to judge
    tool_input = event_field(event, "tool_input")
    command = command_of(event)
    request = seam.AgentRequest(
        agent=AGENT,
        session_id=event.get("session_id"),
        cwd=str(event_field(event, "cwd")),
        command=command,
        justification=tool_input.get("description"),
        approval_policy=options.approval_policy,
        sandbox=options.sandbox or "danger-full-access",
    )
    res = resolve(request, options, NAME, event.get("transcript_path"))
    if name == "PreToolUse":
        return _pre_tool_use(res, tool_input)
    return _permission_request(res, tool_input)


def _updated(res: Resolution, tool_input: Mapping[str, Any]) -> dict[str, Any]:
    return {} if res.command is None else {"updatedInput": {**tool_input, "command": res.command}}


def _pre_tool_use(res: Resolution, tool_input: Mapping[str, Any]) -> dict[str, Any]:
    decision = {Verdict.ALLOW: "allow", Verdict.BLOCK: "deny", Verdict.AGENT_ASKS: "ask"}
    out = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision[res.verdict],
        "permissionDecisionReason": res.reason,
    }
    if res.verdict is Verdict.ALLOW:
        out.update(_updated(res, tool_input))
    return {"hookSpecificOutput": out}


def _permission_request(res: Resolution, tool_input: Mapping[str, Any]) -> dict[str, Any]:
    if res.verdict is Verdict.AGENT_ASKS:
        return {"systemMessage": res.reason}  # no decision: Claude Code asks as usual
    if res.verdict is Verdict.ALLOW:
        decision: dict[str, Any] = {"behavior": "allow", **_updated(res, tool_input)}
    else:
        decision = {"behavior": "deny", "message": res.reason}
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
