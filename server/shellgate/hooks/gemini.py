"""Gemini CLI's `BeforeTool` hook for `run_shell_command`.

`{"decision": "deny", "reason": R}` blocks (the model reads "Tool execution blocked: R");
`allow` grants nothing by itself (Gemini's policy still decides, so `hook install` adds a
policy that lets the shell through); `hookSpecificOutput.tool_input` rewrites the call. `ask`
hangs `gemini -p`, hence the `deny` fallback by default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

from shellgate.hooks import seam
from shellgate.hooks.outcome import (
    HookInputError,
    Options,
    Verdict,
    command_of,
    event_field,
    resolve,
)

AGENT = "gemini"
NAME = "Gemini CLI"
TOOL = "run_shell_command"


def handle(event: Mapping[str, Any], options: Options) -> dict[str, Any]:
    name = event_field(event, "hook_event_name")
    if name != "BeforeTool":
        raise HookInputError(f"hook_event_name {name!r} is not BeforeTool")
    if event_field(event, "tool_name") != TOOL:
        return {}  # installed for the shell tool only
    tool_input = event_field(event, "tool_input")
    command = command_of(event)
    cwd = str(event_field(event, "cwd"))
    dir_path = tool_input.get("dir_path")
    if isinstance(dir_path, str) and dir_path:
        cwd = os.path.normpath(os.path.join(cwd, dir_path))  # where Gemini runs it
    request = seam.AgentRequest(
        agent=AGENT,
        session_id=event.get("session_id"),
        cwd=cwd,
        command=command,
        justification=tool_input.get("description"),
        approval_policy=options.approval_policy,
        sandbox=options.sandbox or "danger-full-access",
    )
    res = resolve(request, options, NAME, event.get("transcript_path"))
    if res.verdict is Verdict.BLOCK:
        return {"decision": "deny", "reason": res.reason}
    if res.verdict is Verdict.AGENT_ASKS:
        return {"decision": "ask", "reason": res.reason, "systemMessage": res.reason}
    out: dict[str, Any] = {"decision": "allow", "reason": res.reason}
    if res.command is not None:
        out["hookSpecificOutput"] = {"tool_input": {**tool_input, "command": res.command}}
    return out
