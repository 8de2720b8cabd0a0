"""`shellgate hook status [--json]`: which agents have ShellGate's hook, and where, from their
files alone (nothing is run: the editor asks this for its "Govern Agents" command and its status
bar). `shellgate hook doctor` proves a hook live by running it.

Copilot CLI and VS Code's agent share one hook file (`hook install copilot`); each agent's
entry also says which files its install would write, so that the editor can say so first.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shellgate.codexconfig.layers import default_codex_home
from shellgate.config_edit import ConfigError
from shellgate.hooks import agent_cli, install
from shellgate.hooks.copilot_install import hook_file, installed_command

PROG = "shellgate hook status"
# (id, name, the `hook install` agent)
AGENTS = (
    ("codex", "Codex", "codex"),
    ("claude-code", "Claude Code", "claude-code"),
    ("gemini", "Gemini CLI", "gemini"),
    ("copilot-cli", "Copilot CLI", "copilot"),
    ("vscode-agent", "VS Code's agent", "copilot"),
)


def _json_agent(agent: str, files: list[Path], events: tuple[str, ...]) -> tuple[Path, str] | None:
    """The first file holding our hook for every one of `events`, and its command."""
    found = install.find_hook(agent, files, events)
    return (found[0], found[1][events[0]]) if found else None


def _copilot(files: list[Path]) -> tuple[Path, str] | None:
    for path in files:
        if path.exists() and (command := installed_command(path)) is not None:
            return path, command
    return None


def _missing_parts(command: str) -> str | None:
    """What the installed command needs that is gone (an interpreter, its libraries' folder):
    such a hook cannot answer, and VS Code then runs the command without it."""
    try:
        words = shlex.split(command)
    except ValueError:
        return "its command does not parse"
    for word in words:
        name, eq, value = word.partition("=")
        if eq and name == "PYTHONPATH":
            gone = [p for p in value.split(os.pathsep) if p and not os.path.isdir(p)]
            if gone:
                return f"{gone[0]} is gone (reinstall the hook)"
        elif word.startswith("/") and not os.path.exists(word):
            return f"{word} is gone (reinstall the hook)"
    return None


_CLI = {"copilot-cli": "copilot", "vscode-agent": "vscode"}  # status ids -> agent_cli's


def agent_status(agent_id: str, env: Mapping[str, str], cwd: Path) -> dict[str, Any]:
    """One agent: installed (where, which command), a problem, and what `hook install` writes."""
    name, target = next((n, t) for i, n, t in AGENTS if i == agent_id)
    found: tuple[Path, str] | None = None
    problem: str | None = None
    try:
        if target == "codex":
            home = default_codex_home(env).absolute()
            writes = [home / "hooks.json", home / "config.toml"]
            found = _json_agent(
                "codex", [home / "hooks.json", cwd / ".codex" / "hooks.json"],
                ("PreToolUse", "PermissionRequest"),
            )  # fmt: skip
        elif target == "claude-code":
            files = install.settings_files("claude-code", cwd, env)
            writes = files[:1]
            found = _json_agent("claude-code", files, ("PreToolUse", "PermissionRequest"))
        elif target == "gemini":
            home = install.gemini_home(env)
            writes = [home / "settings.json", home / "policies" / "shellgate.toml"]
            files = install.settings_files("gemini", cwd, env)
            found = _json_agent("gemini", files, ("BeforeTool",))
            if found is not None and not writes[1].exists():
                problem = f"{writes[1]} is missing: Gemini never offers it the shell tool"
        else:
            writes = [hook_file(None, env).absolute()]
            found = _copilot([writes[0], hook_file(cwd, env)])
    except ConfigError as exc:
        problem = str(exc)
    if found is not None and problem is None:
        problem = _missing_parts(found[1])
    program = agent_cli.find(_CLI.get(agent_id, agent_id), env, cwd)
    return {
        "id": agent_id,
        "name": name,
        # the agent itself, where a user's install put it (None: not found on this machine)
        "program": str(program) if program is not None else None,
        "installed": found is not None,
        "file": str(found[0]) if found else None,
        "command": found[1] if found else None,
        "problem": problem,
        "install": ["hook", "install", target],
        "writes": [str(p) for p in writes],
    }


def statuses(env: Mapping[str, str], cwd: Path) -> list[dict[str, Any]]:
    return [agent_status(agent_id, env, cwd) for agent_id, _, _ in AGENTS]


def main(args: list[str], env: Mapping[str, str] = os.environ) -> int:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Which agents have ShellGate's hook (from their files; nothing runs).",
    )
    p.add_argument("--json", action="store_true", help="one JSON object: {\"agents\": [...]}")
    p.add_argument("--project", metavar="DIR", help="the project (default: the current folder)")
    try:
        opts = p.parse_args(args)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    found = statuses(env, Path(opts.project or os.getcwd()).absolute())
    if opts.json:
        print(json.dumps({"agents": found}, indent=1))
        return 0
    for a in found:
        state = "hook installed" if a["installed"] else "no ShellGate hook"
        print(f"{a['name']}: {state}" + (f" ({a['file']})" if a["file"] else ""))
        if a["problem"]:
            print(f"  - {a['problem']}")
        if not a["installed"]:
            print(f"  - install: shellgate {shlex.join(a['install'])}")
    return 0
