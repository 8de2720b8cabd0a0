"""`shellgate hook install copilot` and its doctor: one hook file both hosts read.

Copilot CLI and VS Code's agent both load `$COPILOT_HOME/hooks/*.json` (`~/.copilot/hooks`)
and a repository's `.github/hooks/*.json`. The file is ShellGate's own (`shellgate.json`), in
Copilot's format, under the `PreToolUse` key: both hosts then send Claude-style events, which
the hook answers in the `hookSpecificOutput` shape both honour. The timeout is long (the
editor's dialog may take minutes) and the hook's own deadline is shorter, because both hosts
run the command when a hook overruns.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path

from shellgate.config_edit import read_json

FILE = "shellgate.json"
TIMEOUT = 330  # seconds the hosts wait; the hook's deadline (315) and dialog (300) are shorter
TRUST_NOTE = (
    "note: Copilot CLI loads a repository's hooks only in a trusted folder, and VS Code loads "
    "no hook at all in an untrusted workspace (user-level ones included): trust this folder in "
    "both, or install with --scope user"
)


def copilot_home(env: Mapping[str, str]) -> Path:
    base = env.get("COPILOT_HOME") or os.path.join(env.get("HOME") or "~", ".copilot")
    return Path(os.path.expanduser(base))


def hook_file(scope_root: Path | None, env: Mapping[str, str]) -> Path:
    if scope_root is not None:
        return scope_root / ".github" / "hooks" / FILE
    return copilot_home(env) / "hooks" / FILE


def hook_text(command: str, flags: list[str]) -> str:
    """The hosts' timeout stays 15 s above the hook's own deadline."""
    deadline = float(flags[flags.index("--deadline") + 1]) if "--deadline" in flags else 315
    timeout = max(TIMEOUT, math.ceil(deadline) + 15)
    entry = {"type": "command", "bash": command, "timeoutSec": timeout}
    return json.dumps({"version": 1, "hooks": {"PreToolUse": [entry]}}, indent=2) + "\n"


def installed_command(path: Path) -> str | None:
    """Our command in a Copilot hook file (None: not there); ConfigError if it does not parse."""
    hooks = read_json(path).get("hooks")
    entries = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        command = entry.get("bash") or entry.get("command")
        if isinstance(command, str) and "shellgate hook copilot" in command:
            return command
    return None
