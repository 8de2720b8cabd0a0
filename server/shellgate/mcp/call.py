"""The `shell` tool's arguments, checked completely before anything can run.

The MCP SDK checks the JSON types against the tool's schema; this module checks what a schema
cannot: a non-empty command, a `workdir` inside the workspace (the sandbox's writable root is the
workspace, so a model-chosen `/` must not become a command's directory), a command no longer than
Linux lets one argument be (MAX_ARG_STRLEN: `bash -lc` would fail with E2BIG anyway).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shellgate.approval.context import SandboxPermissions
from shellgate.rules.shlex_rs import join

# Linux's MAX_ARG_STRLEN (32 pages) including the terminating NUL: the longest single argument
# execve accepts, so the longest script `bash -lc` can be given.
MAX_COMMAND_BYTES = 32 * 4096 - 1


class CallError(ValueError):
    """Arguments that cannot be run; the message goes back to the client, nothing ran."""


@dataclass(frozen=True)
class ShellCall:
    argv: tuple[str, ...]  # what runs: (bash, -lc, script) or the argv as given
    shown: str  # the command as the agent gave it, for messages
    workdir: str
    timeout_ms: int | None
    justification: str | None
    permissions: SandboxPermissions


def login_shell() -> str:
    # Codex resolves the shell to an absolute path (`/bin/bash -lc ...`), and so do we.
    return shutil.which("bash") or "/bin/bash"


def parse_call(
    workspace: str,
    command: str | Sequence[str],
    workdir: str | None = None,
    timeout_ms: int | None = None,
    justification: str | None = None,
    sandbox_permissions: str = "use_default",
) -> ShellCall:
    if isinstance(command, str):
        if not command.strip():
            raise CallError("`command` must be a non-empty string or argv list; nothing was run")
        size = len(command.encode("utf-8", "surrogatepass"))
        argv: tuple[str, ...] = (login_shell(), "-lc", command)
        shown = command
    else:
        argv = tuple(command)
        if not argv or not argv[0]:
            raise CallError("`command` must be a non-empty string or argv list; nothing was run")
        size = max(len(a.encode("utf-8", "surrogatepass")) for a in argv)

        shown = join(list(argv))
    if size > MAX_COMMAND_BYTES:
        raise CallError(
            f"`command` is {size} bytes; the limit is {MAX_COMMAND_BYTES} (the longest argument "
            "Linux lets a program be given); nothing was run"
        )
    if any("\0" in a for a in argv):
        raise CallError("`command` contains a NUL byte; nothing was run")
    if timeout_ms is not None and timeout_ms <= 0:
        raise CallError("`timeout_ms` must be a positive number; nothing was run")
    if sandbox_permissions not in ("use_default", "require_escalated"):
        raise CallError(
            '`sandbox_permissions` must be "use_default" or "require_escalated"; nothing was run'
        )
    permissions = SandboxPermissions(sandbox_permissions)
    return ShellCall(
        argv, shown, resolve_workdir(workspace, workdir), timeout_ms, justification or None,
        permissions,
    )  # fmt: skip


# What each tool argument must be, said to the model whose call the SDK's schema check refused.
_EXPECTED = {
    "command": "a string (a script, run as `bash -lc`) or a list of strings (an argv)",
    "workdir": "a string (a directory inside the workspace)",
    "timeout_ms": "a whole number of milliseconds above 0",
    "justification": "a string",
    "sandbox_permissions": '"use_default" or "require_escalated"',
    "tool_name": "a string",
    "input": "an object",
    "tool_use_id": "a string",
}


def invalid_params(tool: str, errors: Sequence[Mapping[str, object]],
                   arguments: Mapping[str, object]) -> str:  # fmt: skip
    """One sentence for pydantic's errors (`ValidationError.errors()`) of a tool's arguments:
    each argument once, what it must be and the value given; nothing was run."""
    said: dict[str, str] = {}
    for error in errors:
        loc = error.get("loc")
        name = str(loc[0]) if isinstance(loc, tuple | list) and loc else "arguments"
        if name in said:
            continue
        expected = _EXPECTED.get(name)
        if error.get("type") == "missing":
            said[name] = f"`{name}` is missing" + (f": it must be {expected}" if expected else "")
        elif expected is None:
            said[name] = f"`{name}`: {str(error.get('msg', 'not accepted')).lower()}"
        else:
            said[name] = f"`{name}` must be {expected}, not {_shown(arguments.get(name))}"
    return f"invalid params for `{tool}`: {'; '.join(said.values())}; nothing was run"


def _shown(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def resolve_workdir(workspace: str, requested: str | None) -> str:
    """`requested` (relative to the workspace, or absolute) as a real folder inside it."""
    root = os.path.realpath(workspace)
    path = os.path.realpath(os.path.join(root, requested or "."))
    if path != root and not path.startswith(root.rstrip("/") + "/"):
        raise CallError(
            f"`workdir` {requested} is outside the workspace {root}; nothing was run"
        )
    if not os.path.isdir(path):
        raise CallError(f"`workdir` {requested} is not a directory; nothing was run")
    return path
