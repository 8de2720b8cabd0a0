"""The one tool the model gets, `shell_command`, shaped like Codex's tool of that name; parsing
its arguments (never trusting them) and what the model is told of each outcome."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

SHELL_COMMAND = "shell_command"

SHELL_TOOL: dict[str, Any] = {
    "name": SHELL_COMMAND,
    "description": (
        "Runs a shell command (as `bash -lc`) and returns its output. Every command is checked "
        "against the user's rules and approval policy and runs in a sandbox; the user may be "
        "asked to approve it. Always set the `workdir` param when using the shell_command "
        "function. Do not use `cd` unless absolutely necessary."),
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "string",
                        "description": "The shell script to execute in the user's default shell"},
            "workdir": {"type": "string",
                        "description": "The working directory to execute the command in"},
            "timeout_ms": {"type": "number",
                           "description": "The timeout for the command in milliseconds"},
            "sandbox_permissions": {
                "type": "string", "enum": ["use_default", "require_escalated"],
                "description": "Sandbox permissions for the command. Set to \"require_escalated\" "
                               "to request running without sandbox restrictions; defaults to "
                               "\"use_default\"."},
            "justification": {
                "type": "string",
                "description": "Only set if sandbox_permissions is \"require_escalated\" or the "
                               "command needs approval. A one-sentence question for the user, "
                               "e.g. \"Do you want to run the tests?\""},
            "prefix_rule": {
                "type": "array", "items": {"type": "string"},
                "description": "Only with a justification: the command prefix you propose the "
                               "user allow from now on, e.g. [\"npm\", \"run\", \"test\"]"},
        },
        "required": ["command"],
        "additionalProperties": False,
    },
}


@dataclass(frozen=True)
class ShellCommandArgs:
    command: str
    workdir: str | None = None
    timeout_ms: int | None = None
    escalated: bool = False
    justification: str | None = None
    prefix_rule: tuple[str, ...] | None = None


class ToolArgumentError(ValueError):
    """Arguments the model sent that cannot be run; the message goes back to the model."""


def parse_arguments(name: str, raw: str) -> ShellCommandArgs:
    """Validate a tool call completely before anything can run."""
    if name != SHELL_COMMAND:
        raise ToolArgumentError(f"unknown tool {name!r}: the only tool is {SHELL_COMMAND}")
    try:
        data = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        raise ToolArgumentError(f"failed to parse function arguments: {exc.msg} at line "
                                f"{exc.lineno} column {exc.colno}; nothing was run") from None
    if not isinstance(data, dict):
        raise ToolArgumentError("function arguments must be a JSON object; nothing was run")
    command = data.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ToolArgumentError("`command` must be a non-empty string; nothing was run")
    workdir = _optional(data, "workdir", str)
    justification = _optional(data, "justification", str)
    timeout = data.get("timeout_ms")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or timeout <= 0):
        raise ToolArgumentError("`timeout_ms` must be a positive number; nothing was run")
    perms = data.get("sandbox_permissions", "use_default")
    if perms not in ("use_default", "require_escalated", None):
        raise ToolArgumentError("`sandbox_permissions` must be \"use_default\" or "
                                "\"require_escalated\"; nothing was run")
    prefix = data.get("prefix_rule")
    if prefix is not None and (not isinstance(prefix, list)
                               or not all(isinstance(t, str) and t for t in prefix)):
        raise ToolArgumentError("`prefix_rule` must be a list of non-empty strings; "
                                "nothing was run")
    return ShellCommandArgs(command=command, workdir=workdir,
                            timeout_ms=int(timeout) if timeout is not None else None,
                            escalated=perms == "require_escalated",
                            justification=justification,
                            prefix_rule=tuple(prefix) if prefix else None)


def _optional(data: dict[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise ToolArgumentError(f"`{key}` must be a {kind.__name__}; nothing was run")
    return value


def truncate_middle(text: str, max_bytes: int) -> str:
    """Keep the head and the tail of a long output, as Codex does, and say what was cut."""
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes:
        return text
    half = max_bytes // 2
    head = data[:half].decode("utf-8", "ignore")
    tail = data[-half:].decode("utf-8", "ignore")
    cut = len(data) - len(head.encode()) - len(tail.encode())
    total_lines = text.count("\n") + 1
    return f"Total output lines: {total_lines}\n\n{head}\n…{cut} bytes truncated…\n{tail}"


def format_ran(exit_code: int, duration_s: float, output: str, max_bytes: int) -> str:
    """What the model reads of a command that ran: Codex's shell_command output shape."""
    return (f"Exit code: {exit_code}\nWall time: {duration_s:.1f} seconds\nOutput:\n"
            f"{truncate_middle(output, max_bytes)}")
