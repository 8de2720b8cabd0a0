"""`shellgate hook install AGENT --scope managed`: ShellGate in each agent's admin-level
settings, so that one install (as root) governs every user's agent and no user setting turns it
off. Where each agent reads them, found in its own binary or bundle:

- Codex: `/etc/codex/requirements.toml` `[hooks]` (Codex has no variable that moves it). A
  managed hook runs without the trust entry a user's hook needs.
- Claude Code: `/etc/claude-code/managed-settings.json` (the policy tier, above user, project
  and local settings; a user's `disableAllHooks` does not reach managed hooks).
- Gemini CLI: `/etc/gemini-cli/settings.json` (or `$GEMINI_CLI_SYSTEM_SETTINGS_PATH`), merged
  last so it wins over user and workspace settings; we set `hooksConfig.enabled = true` there
  too, and put the policy that lets run_shell_command reach the hook in the admin tier,
  `/etc/gemini-cli/policies/`. What Gemini still lets a user do: name the hook ("shellgate")
  in `hooksConfig.disabled`, a list Gemini merges as a union across tiers.

Files are edited as `hook install` edits the user's (config_edit: atomic, modes kept, a backup
of the first version); a file created here is made readable by every user (0644).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from shellgate.codexconfig.requirements import RequirementsError, parse_requirements
from shellgate.config_edit import (
    Change,
    ConfigError,
    json_text,
    parse_toml,
    read_toml,
    save,
)
from shellgate.hooks import install

CODEX_REQUIREMENTS = Path("/etc/codex/requirements.toml")
CLAUDE_MANAGED = Path("/etc/claude-code/managed-settings.json")
GEMINI_SYSTEM = Path("/etc/gemini-cli")
_BEGIN = "# >>> shellgate hook codex: written by `shellgate hook install codex --scope managed`"
_END = "# <<< shellgate hook codex"
_BLOCK = re.compile(r"^" + re.escape(_BEGIN) + r"\n.*?^" + re.escape(_END) + r"\n?", re.M | re.S)


def _saved(path: Path, text: str, what: str) -> list[Change]:
    new = not path.exists()
    change = save(path, what, text)
    if new and change.changed:
        os.chmod(path, 0o644)  # every user's agent reads it, whatever root's umask
    return [change] if change.changed else []


def codex_block(command: str) -> str:
    lines = [_BEGIN]
    for event in ("PreToolUse", "PermissionRequest"):
        lines += [
            f"[[hooks.{event}]]",
            'matcher = "Bash"',
            f"[[hooks.{event}.hooks]]",
            'type = "command"',
            f"command = {json.dumps(command)}",
            f"timeout = {install.HOOK_TIMEOUT}",
        ]
    return "\n".join([*lines, _END]) + "\n"


def codex_installed(path: Path = CODEX_REQUIREMENTS) -> bool:
    try:
        return _BEGIN in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def install_codex(path: Path, flags: list[str], uninstall: bool) -> list[Change]:
    """Our block in requirements.toml, replaced whole on each install; the rest kept byte for
    byte. A file whose hooks are spelled so that ours cannot be added is refused, unwritten."""
    text, _ = read_toml(path)
    text = _BLOCK.sub("", text)
    if not uninstall:
        if text and not text.endswith("\n"):
            text += "\n"
        text += codex_block(install.hook_command("codex", flags))
    parse_toml(path, text, "ShellGate's [hooks] would not fit in it")

    try:  # never leave a file that stops Codex (and every ShellGate entry point) from starting
        parse_requirements(text, str(path), base=path.parent)
    except RequirementsError as exc:
        raise ConfigError(f"{exc}; nothing was written") from None
    return _saved(path, text, install.HOOK_REMOVED if uninstall else "managed PreToolUse + "
                  "PermissionRequest hooks for Bash")  # fmt: skip


def install_claude(path: Path, flags: list[str], uninstall: bool) -> list[Change]:
    events = install._bash_events(install.hook_command("claude-code", flags))
    text, _ = install._json_hooks(path, events, "claude-code", uninstall)
    return _saved(path, text, install.HOOK_REMOVED if uninstall else "managed PreToolUse + "
                  "PermissionRequest hooks for Bash")  # fmt: skip


def gemini_settings(env: Mapping[str, str]) -> Path:
    return Path(env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or GEMINI_SYSTEM / "settings.json")


def install_gemini(
    settings: Path, policies: Path, flags: list[str], uninstall: bool
) -> list[Change]:
    group = install.gemini_group(install.hook_command("gemini", flags))
    text, _ = install._json_hooks(settings, {"BeforeTool": group}, "gemini", uninstall)
    data = json.loads(text)
    config = data.setdefault("hooksConfig", {})
    if not isinstance(config, dict):
        config = data["hooksConfig"] = {}
    if uninstall:
        if config.get("enabled") is True:
            config.pop("enabled")
        if not config:
            data.pop("hooksConfig")
    else:
        config["enabled"] = True  # the system tier is merged last: a user's `false` loses
    what = install.HOOK_REMOVED if uninstall else "system BeforeTool hook for run_shell_command"
    changes = _saved(settings, json_text(data), what)
    policy = policies / "shellgate.toml"
    if uninstall:
        if policy.exists():
            policy.unlink()
            changes.append(Change(policy, install.FILE_REMOVED))
        return changes
    return changes + _saved(policy, install.GEMINI_POLICY,
                            "admin policy: run_shell_command reaches the hook")  # fmt: skip


def install_managed(agent: str, flags: list[str], uninstall: bool,
                    env: Mapping[str, str]) -> list[Change]:  # fmt: skip
    if agent == "codex":
        return install_codex(CODEX_REQUIREMENTS, flags, uninstall)
    if agent == "claude-code":
        return install_claude(CLAUDE_MANAGED, flags, uninstall)
    return install_gemini(gemini_settings(env), GEMINI_SYSTEM / "policies", flags, uninstall)
