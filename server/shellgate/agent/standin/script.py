"""The stand-in's script: steps, read from a file or given in-process, and the tool calls they
name, whatever wire protocol carries them."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

Step = dict[str, Any]
# The shell tool each client offers and its arguments' shape: Codex and ShellGate (OpenAI),
# Claude Code (`Bash`), Gemini CLI (`run_shell_command`), Copilot CLI (`bash`).
SHELL_TOOLS = (
    ("shell_command", lambda cmd: {"command": cmd}),
    ("exec_command", lambda cmd: {"cmd": cmd}),
    ("shell", lambda cmd: {"command": ["bash", "-lc", cmd]}),
    ("run_shell", lambda cmd: {"command": cmd}),
    ("Bash", lambda cmd: {"command": cmd}),
    ("run_shell_command", lambda cmd: {"command": cmd}),
    ("bash", lambda cmd: {"command": cmd, "description": "run it"}),
)


def uid(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:10]


def tool_names(body: dict[str, Any]) -> list[str]:
    """The tools a request offers: OpenAI (`name`, `function.name`), Anthropic (`name`), Gemini
    (`functionDeclarations[].name`)."""
    names = []
    for tool in body.get("tools") or []:
        for decl in tool.get("functionDeclarations") or [tool.get("function") or tool]:
            if decl.get("name"):
                names.append(decl["name"])
    return names


def resolve_auto(step: Step, body: dict[str, Any]) -> Step:
    """Turn {"tool": "<auto>", "command": ...} into a call to the shell tool this client offers."""
    if step.get("tool") != "<auto>":
        return step
    names = tool_names(body)
    for name, shape in SHELL_TOOLS:
        if name in names:
            args = {**shape(step["command"]), **step.get("extra", {})}
            return {**step, "tool_calls": [{"name": name, "arguments": args}]}
    return {**step, "text": f"(no shell tool among {names})"}


def arguments(call: dict[str, Any]) -> str:
    if "raw_arguments" in call:  # deliberately broken JSON, for the "never executed" tests
        return str(call["raw_arguments"])
    return json.dumps(call.get("arguments", {}))


def load_script(path: Path) -> list[Step]:
    """Read a script file; a clear error (file, line, column) instead of a traceback."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read script: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise ValueError(f"{path}:1:1: a script is a JSON list of step objects")
    return data
