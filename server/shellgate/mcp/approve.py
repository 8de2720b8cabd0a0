"""The `approve` tool: Claude Code's `--permission-prompt-tool mcp__shellgate__approve`.

Claude Code calls it with `{tool_name, input, tool_use_id}` whenever one of its own tools needs
permission (in `-p` too), and reads back exactly one text block holding
`{"behavior": "allow", "updatedInput": {...}}` or `{"behavior": "deny", "message": "..."}`.
The question goes to the editor's dialog through the broker; with no editor there, it is denied
with the reason: a headless agent is never allowed by default.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from shellgate.broker.decide import decide
from shellgate.broker.protocol import AgentDecision, AgentRequest
from shellgate.mcp import editor
from shellgate.record.build import from_hook
from shellgate.record.sink import record

NO_EDITOR = (
    "ShellGate: no ShellGate editor is open for {cwd}, so nobody can approve {tool}; denied. "
    "Open the folder in VS Code with the ShellGate extension to approve from there."
)


def _command(tool_name: str, tool_input: dict[str, Any]) -> str | tuple[str, ...]:
    """What the editor shows: the shell command for a shell tool, else the tool and its input."""
    command = tool_input.get("command")
    if isinstance(command, str) and command.strip():
        return command
    return (tool_name, json.dumps(tool_input, ensure_ascii=False, sort_keys=True))


def _decision(tool_name: str, request: AgentRequest) -> AgentDecision:
    """A shell command: the chain's decision on the rules from disk. Another tool: Claude
    Code's own question, which no rule judges."""
    if isinstance(request.command, str):
        return decide(request)
    return AgentDecision("prompt", "needs_approval", f"Claude Code asks to use {tool_name}",
                         None, None, False)  # fmt: skip


async def permission_answer(tool_name: str, tool_input: dict[str, Any], *, cwd: str,
                            session_id: str, timeout: float) -> dict[str, Any]:  # fmt: skip
    """Claude Code's permission answer for one prompt, recorded (shellgate.record)."""
    started, trail = time.monotonic(), dict[str, Any]()
    out = await _answer(tool_name, tool_input, cwd, session_id, timeout, trail)
    if "request" in trail:
        allowed = out["behavior"] == "allow"
        record(from_hook(trail["request"], "allow" if allowed else "block",
                         out.get("message", ""), trail, started))  # fmt: skip
    return out


async def _answer(tool_name: str, tool_input: dict[str, Any], cwd: str, session_id: str,
                  timeout: float, trail: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    description = tool_input.get("description")
    request = AgentRequest(
        agent="claude-code", session_id=session_id, cwd=cwd,
        command=_command(tool_name, tool_input),
        justification=description if isinstance(description, str) else None,
        approval_policy="on-request", sandbox="workspace-write")  # fmt: skip
    trail["request"] = request
    try:
        decision = trail["decision"] = await asyncio.to_thread(_decision, tool_name, request)
        if decision.decision == "forbidden":  # nobody may wave a forbidden rule through
            return {"behavior": "deny", "message": f"ShellGate: forbidden: {decision.reason}"}
        answer = trail["answer"] = await editor.cancellable(editor.ask_raw, request, decision,
                                                            timeout=timeout)  # fmt: skip
    except Exception as exc:
        return {"behavior": "deny", "message": f"ShellGate: the editor could not be asked: {exc}"}
    if answer is None:
        return {"behavior": "deny", "message": NO_EDITOR.format(cwd=cwd, tool=tool_name)}
    if answer.approved:
        return {"behavior": "allow", "updatedInput": tool_input}
    message = answer.message or f"the user answered {answer.answer}"
    return {"behavior": "deny", "message": f"ShellGate: {message}"}
