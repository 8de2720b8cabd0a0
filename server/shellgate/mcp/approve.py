"""The `approve` tool: Claude Code's `--permission-prompt-tool mcp__shellgate__approve`.

Claude Code calls it with `{tool_name, input, tool_use_id}` whenever one of its own tools needs
permission (in `-p` too), and reads back exactly one text block holding
`{"behavior": "allow", "updatedInput": {...}}` or `{"behavior": "deny", "message": "..."}`.
The question goes to the editor's dialog through the broker; with no editor there, it is denied
with the reason: a headless agent is never allowed by default.
"""

from __future__ import annotations

import json
from typing import Any

from shellgate.mcp import editor

NO_EDITOR = (
    "ShellGate: no ShellGate editor is open for {cwd}, so nobody can approve {tool}; denied. "
    "Open the folder in VS Code with the ShellGate extension to approve from there."
)


def _command(tool_name: str, tool_input: dict[str, Any]) -> str | list[str]:
    """What the editor shows: the shell command for a shell tool, else the tool and its input."""
    command = tool_input.get("command")
    if isinstance(command, str) and command.strip():
        return command
    return [tool_name, json.dumps(tool_input, ensure_ascii=False, sort_keys=True)]


async def permission_answer(tool_name: str, tool_input: dict[str, Any], *, cwd: str,
                            session_id: str, timeout: float) -> dict[str, Any]:  # fmt: skip
    """Claude Code's permission answer for one prompt."""
    try:
        answer = await editor.cancellable(
            editor.ask_raw, cwd=cwd, agent="claude-code", session_id=session_id,
            command=_command(tool_name, tool_input),
            justification=tool_input.get("description") if isinstance(
                tool_input.get("description"), str) else None,
            approval_policy="on-request", sandbox="workspace-write", timeout=timeout)  # fmt: skip
    except Exception as exc:
        return {"behavior": "deny", "message": f"ShellGate: the editor could not be asked: {exc}"}
    if answer is None:
        return {"behavior": "deny", "message": NO_EDITOR.format(cwd=cwd, tool=tool_name)}
    if answer.approved:
        return {"behavior": "allow", "updatedInput": tool_input}
    message = answer.message or f"the user answered {answer.answer}"
    return {"behavior": "deny", "message": f"ShellGate: {message}"}
