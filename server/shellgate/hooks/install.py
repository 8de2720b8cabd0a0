"""`shellgate hook install AGENT` and `shellgate hook doctor`: ShellGate's hook merged into
the agent's own configuration, and a check that it is live.

Merging keeps every other setting; our entry is found by its command (`-m shellgate hook
AGENT`), so a second install replaces it instead of adding another. A file that does not parse
is left alone (Claude Code ignores an invalid settings file as a whole, Codex refuses a bad
config.toml): the user fixes it first (`shellgate.config_edit`). Each changed file is copied to
`FILE.shellgate-<time>.bak` first (config_edit.backup: every state kept).
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import shellgate
from shellgate.codexconfig import hook_trust as codex_trust
from shellgate.config_edit import (
    Change,
    ConfigError,
    json_text,
    member,
    parse_toml,
    read_json,
    read_toml,
    save,
)
from shellgate.hooks.copilot_install import hook_file, hook_text

PROG = "shellgate hook install"
HOOK_TIMEOUT = 330  # seconds; above the dialog's 300, so we answer before the agent gives up
MARK = "shellgate hook "
GEMINI_POLICY = """\
# Written by `shellgate hook install gemini`: lets run_shell_command reach ShellGate's BeforeTool
# hook, which decides every shell command (Gemini's `allow` from a hook grants nothing itself).
[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
allowRedirection = true
"""


def hook_command(agent: str, flags: list[str]) -> str:
    return shlex.join([*_launcher(), "hook", agent, *flags])


@functools.cache
def _launcher() -> tuple[str, ...]:
    """This interpreter, isolated (-I: no planted `shellgate/` in the cwd is imported), when it
    finds this ShellGate by itself. Otherwise (the VS Code extension's bundled libraries, put on
    sys.path by its launcher) their folder is named as the only PYTHONPATH: a hook that cannot
    import ShellGate exits 1, which VS Code's agent takes as "run it"."""
    here = str(Path(shellgate.__file__).resolve().parent.parent)
    probe = (
        "import pathlib, shellgate; print(pathlib.Path(shellgate.__file__).resolve().parent.parent)"
    )
    try:
        found = subprocess.run(
            [sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        found = ""
    if found == here:
        return (sys.executable, "-I", "-m", "shellgate")
    # -s -P: -I without -E, which would drop the PYTHONPATH
    return ("/usr/bin/env", f"PYTHONPATH={here}", sys.executable, "-s", "-P", "-m", "shellgate")


# What `hook uninstall` did to each file: an edited file keeps everything else in it.
HOOK_REMOVED = "ShellGate's hook removed (the rest of the file kept)"
FILE_REMOVED = "deleted (ShellGate's own file)"


def _ours(command: object, agent: str) -> bool:
    return isinstance(command, str) and (MARK + agent) in command


def _bash_events(command: str) -> dict[str, dict[str, Any]]:
    """Codex's and Claude Code's groups: the same shape, the same two events."""
    hook = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    return {ev: {"matcher": "Bash", "hooks": [hook]} for ev in ("PreToolUse", "PermissionRequest")}


def _save(*files: tuple[Path, str, str]) -> list[Change]:
    """Write each (path, text, what); the files that changed."""
    changes = [save(path, what, text) for path, text, what in files]
    return [c for c in changes if c.changed]


def _merge_groups(
    hooks: dict[str, Any], event: str, group: dict[str, Any] | None, agent: str
) -> int | None:
    """Drop our old group for `event`, add `group` last; the index it got (None: removed)."""
    groups = [
        g
        for g in hooks.get(event) or []
        if not any(
            _ours(h.get("command"), agent) for h in (g.get("hooks") or []) if isinstance(h, dict)
        )
    ]
    if group is not None:
        groups.append(group)
    if groups:
        hooks[event] = groups
    else:
        hooks.pop(event, None)
    return len(groups) - 1 if group is not None else None


def _json_hooks(
    path: Path, events: Mapping[str, dict[str, Any]], agent: str, uninstall: bool
) -> tuple[str, dict[str, int | None]]:
    data = read_json(path)
    hooks = member(data, "hooks", dict, path)
    index = {
        ev: _merge_groups(hooks, ev, None if uninstall else g, agent) for ev, g in events.items()
    }
    if not hooks:
        data.pop("hooks")
    return json_text(data), index


def install_codex(
    codex_home: Path, scope_root: Path | None, flags: list[str], uninstall: bool
) -> list[Change]:
    """hooks.json (user: $CODEX_HOME, project: <root>/.codex) plus the trust state."""
    declaring = (scope_root / ".codex" if scope_root else codex_home).absolute() / "hooks.json"
    command = hook_command("codex", flags)
    events = _bash_events(command)
    old_index = _json_index(declaring, "codex")
    text, index = _json_hooks(declaring, events, "codex", uninstall)
    config = codex_home.absolute() / "config.toml"
    config_text, _ = read_toml(config)
    for event, old in old_index.items():
        config_text = codex_trust.set_trust(
            config_text, codex_trust.state_key(declaring, event, old), None
        )
    for event, group in index.items():
        if group is not None:
            value = codex_trust.trust_hash(event, "Bash", command, HOOK_TIMEOUT)
            config_text = codex_trust.set_trust(
                config_text, codex_trust.state_key(declaring, event, group), value
            )
    # e.g. the same table already spelled differently
    parse_toml(config, config_text, "the trust entry would not parse")
    verb = HOOK_REMOVED if uninstall else "PreToolUse + PermissionRequest hooks for Bash"
    trust = "ShellGate's hook trust removed (the rest of the file kept)" if uninstall else \
        "hook trust (hooks.state trusted_hash)"  # fmt: skip
    return _save((declaring, text, verb), (config, config_text, trust))


def _json_index(path: Path, agent: str) -> dict[str, int]:
    """Where our groups sit now, so that their trust entries can be dropped."""
    try:
        hooks = read_json(path).get("hooks") or {}
    except ConfigError:
        return {}
    out = {}
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for i, g in enumerate(groups if isinstance(groups, list) else []):
            if isinstance(g, dict) and any(
                isinstance(h, dict) and _ours(h.get("command"), agent) for h in g.get("hooks") or []
            ):
                out[event] = i
    return {k: v for k, v in out.items() if k in codex_trust.EVENT_LABELS}


def claude_settings(scope_root: Path | None, env: Mapping[str, str]) -> Path:
    if scope_root is not None:
        return scope_root / ".claude" / "settings.json"
    base = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or "~", ".claude")
    return Path(os.path.expanduser(base)) / "settings.json"


def install_claude(settings: Path, flags: list[str], uninstall: bool) -> list[Change]:
    events = _bash_events(hook_command("claude-code", flags))
    text, _ = _json_hooks(settings, events, "claude-code", uninstall)
    verb = HOOK_REMOVED if uninstall else "PreToolUse + PermissionRequest hooks for Bash"
    return _save((settings, text, verb))


def gemini_home(env: Mapping[str, str]) -> Path:
    return (
        Path(os.path.expanduser(env.get("GEMINI_CLI_HOME") or env.get("HOME") or "~")) / ".gemini"
    )


def gemini_group(command: str) -> dict[str, Any]:
    hook = {"name": "shellgate", "type": "command", "command": command,
            "timeout": HOOK_TIMEOUT * 1000}  # fmt: skip
    return {"matcher": "run_shell_command", "hooks": [hook]}


def install_gemini(
    home: Path, scope_root: Path | None, flags: list[str], uninstall: bool
) -> list[Change]:
    settings = (scope_root / ".gemini" if scope_root else home) / "settings.json"
    group = gemini_group(hook_command("gemini", flags))
    text, _ = _json_hooks(settings, {"BeforeTool": group}, "gemini", uninstall)
    verb = HOOK_REMOVED if uninstall else "BeforeTool hook for run_shell_command"
    policy = home / "policies" / "shellgate.toml"  # user tier: workspace policies are ignored
    if not uninstall:
        return _save((settings, text, verb),
                     (policy, GEMINI_POLICY, "policy: run_shell_command reaches the hook"))
    changes = _save((settings, text, verb))
    if policy.exists():
        policy.unlink()
        changes.append(Change(policy, FILE_REMOVED))
    return changes


def install_copilot(
    root: Path | None, env: Mapping[str, str], flags: list[str], uninstall: bool
) -> list[Change]:
    """ShellGate's own hook file, read by both Copilot CLI and VS Code's agent."""
    path = hook_file(root, env).absolute()
    if not uninstall:
        return _save((path, hook_text(hook_command("copilot", flags), flags),
                      "PreToolUse hook for Copilot CLI's bash and VS Code's terminal tools"))
    if not path.exists():
        return []
    path.unlink()
    return [Change(path, FILE_REMOVED)]


def settings_files(agent: str, cwd: Path, env: Mapping[str, str]) -> list[Path]:
    """Where Claude Code or Gemini CLI reads hooks: the user's settings, then the project's."""
    if agent == "claude-code":
        return [claude_settings(None, env), claude_settings(cwd, env)]
    return [gemini_home(env) / "settings.json", cwd / ".gemini" / "settings.json"]


def find_hook(
    agent: str, files: Sequence[Path], events: Sequence[str] = ()
) -> tuple[Path, dict[str, str]] | None:
    """The first of `files` holding our hook (for every one of `events`), and its commands."""
    for path in files:
        commands = our_commands(path, agent) if path.exists() else {}
        if commands and all(e in commands for e in events):
            return path, commands
    return None


def our_commands(path: Path, agent: str) -> dict[str, str]:
    """event -> our installed command, from a hooks/settings JSON file."""
    hooks = read_json(path).get("hooks") or {}
    found: dict[str, str] = {}
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for g in groups if isinstance(groups, list) else []:
            for h in (g.get("hooks") or []) if isinstance(g, dict) else []:
                if isinstance(h, dict) and _ours(h.get("command"), agent):
                    found[event] = h["command"]
    return found
