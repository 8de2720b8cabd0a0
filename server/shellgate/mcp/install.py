"""`shellgate mcp install codex|claude-code|gemini`: the client's MCP server entry for ShellGate,
plus the setting that stops the client asking a second time for what ShellGate decides:

- Codex: `[mcp_servers.shellgate]` in config.toml with `default_tools_approval_mode = "approve"`
  (user: `$CODEX_HOME/config.toml`; project: `.codex/config.toml`);
- Claude Code: `mcpServers.shellgate` (user: `~/.claude.json`; project: `.mcp.json`, enabled in
  `.claude/settings.json`) and `permissions.allow` holding `mcp__shellgate__shell`
  (`~/.claude/settings.json` or `.claude/settings.json`);
- Gemini CLI: `mcpServers.shellgate` with `trust: true` in `settings.json` (`~/.gemini/` or
  `.gemini/`).

Idempotent: a file already right is not touched. A file that changes is first copied to
`<name>.shellgate-<time>.bak`; JSON files keep every other key; config.toml keeps every other
table, and is parsed again after the edit (a file we cannot edit safely is left as it was, with
an error saying so). `uninstall` removes only what install wrote.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shellgate.config_edit import (
    Change,
    ConfigError,
    edit_json,
    member,
    parse_toml,
    read_toml,
    save,
)

SERVER = "shellgate"
CLAUDE_TOOLS = ("mcp__shellgate__shell",)
CLIENTS = ("codex", "claude-code", "gemini")
InstallError = ConfigError  # the name the CLI and the tests know


def server_command(codex_home: Path | None) -> tuple[str, list[str]]:
    """How the client starts us: this interpreter, so the client needs no PATH of ours,
    isolated (-I), as the hooks are: a `shellgate/` folder in the directory the client starts
    us from, or a PYTHONPATH, is never imported instead of ShellGate."""
    args = ["-I", "-m", "shellgate", "mcp"]
    if codex_home is not None:
        args += ["--codex-home", str(codex_home)]
    return sys.executable, args


# -- JSON files ---------------------------------------------------------------------------
def _json_server(path: Path, entry: dict[str, Any], uninstall: bool) -> Change:
    def edit(data: dict[str, Any]) -> None:
        servers = member(data, "mcpServers", dict, path)
        if uninstall:
            servers.pop(SERVER, None)
            if not servers:
                data.pop("mcpServers")
        else:
            servers[SERVER] = entry

    return edit_json(path, "removed the shellgate MCP server" if uninstall
                     else "the shellgate MCP server", edit)  # fmt: skip


def _json_list_items(path: Path, keys: Sequence[str], items: Sequence[str], uninstall: bool,
                     what: str) -> Change:  # fmt: skip
    def edit(data: dict[str, Any]) -> None:
        holder = data
        for key in keys[:-1]:
            holder = member(holder, key, dict, path)
        values = member(holder, keys[-1], list, path)
        for item in items:
            if uninstall and item in values:
                values.remove(item)
            elif not uninstall and item not in values:
                values.append(item)
        if uninstall:  # leave no empty containers we made
            if not values:
                holder.pop(keys[-1])
            if len(keys) > 1 and not holder:
                data.pop(keys[0])

    return edit_json(path, f"removed {what}" if uninstall else what, edit)


# -- Codex's config.toml ----------------------------------------------------------------------
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _is_ours(table: str) -> bool:
    name = table.replace('"', "").replace("'", "").replace(" ", "")
    return name == f"mcp_servers.{SERVER}" or name.startswith(f"mcp_servers.{SERVER}.")


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def _codex_block(command: str, args: Sequence[str]) -> str:
    return (
        f"[mcp_servers.{SERVER}]\n"
        f"command = {_toml_str(command)}\n"
        f"args = [{', '.join(_toml_str(a) for a in args)}]\n"
        "# ShellGate decides and asks; Codex need not ask again before each call.\n"
        'default_tools_approval_mode = "approve"\n'
        "# Wait for ShellGate before the first turn (else `codex exec` may start without it).\n"
        "required = true\n"
        "startup_timeout_sec = 30\n"
        "# A call may wait for the user's answer (300 s at most) before its command runs.\n"
        "tool_timeout_sec = 900\n"
        "# Codex passes servers a short list of variables; the editor's socket is found here.\n"
        'env_vars = ["XDG_RUNTIME_DIR"]\n'
    )


def _codex_config(path: Path, command: str, args: Sequence[str], uninstall: bool) -> Change:
    text, parsed = read_toml(path)
    kept: list[str] = []
    ours = False
    found = False
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line)
        if m:
            ours = _is_ours(m.group(1))
            found = found or ours
        if not ours:
            kept.append(line)
    servers = parsed.get("mcp_servers")
    if isinstance(servers, dict) and SERVER in servers and not found:
        raise InstallError(f"{path}: mcp_servers.{SERVER} is defined inline; edit it by hand "
                           "(nothing was written)")  # fmt: skip
    body = "".join(kept).rstrip("\n")
    if not uninstall:
        body = (body + "\n\n" if body else "") + _codex_block(command, args)
    elif body:
        body += "\n"
    new = body
    what = "removed the shellgate MCP server" if uninstall else (
        'the shellgate MCP server, default_tools_approval_mode = "approve"')  # fmt: skip
    if _normal(new) == _normal(text):
        return Change(path, what, False)
    check = parse_toml(path, new, "the edit would not parse")
    if not uninstall and check["mcp_servers"][SERVER]["command"] != command:
        raise InstallError(f"{path}: the edit did not take; nothing was written")
    return save(path, what, new)


def _normal(text: str) -> str:
    return text.strip("\n")


# -- the clients --------------------------------------------------------------------------------
def install(
    client: str, *, scope: str, project: Path, home: Path, codex_home: Path,
    uninstall: bool = False, codex_home_arg: Path | None = None,
) -> list[Change]:  # fmt: skip
    """Every file changed (or found already right) for `client`. Raises InstallError."""
    if client == "codex":
        # Codex starts MCP servers with a short allow-list of variables: name its home outright.
        command, args = server_command(codex_home)
        path = codex_home / "config.toml" if scope == "user" else project / ".codex" / "config.toml"
        return [_codex_config(path, command, args, uninstall)]
    command, args = server_command(codex_home_arg)
    if client == "claude-code":
        entry: dict[str, Any] = {"type": "stdio", "command": command, "args": args}
        if scope == "user":
            servers, settings = home / ".claude.json", home / ".claude" / "settings.json"
        else:
            servers, settings = project / ".mcp.json", project / ".claude" / "settings.json"
        changes = [_json_server(servers, entry, uninstall),
                   _json_list_items(settings, ("permissions", "allow"), CLAUDE_TOOLS, uninstall,
                                    "permissions.allow: mcp__shellgate__shell")]  # fmt: skip
        if scope == "project":  # a project's .mcp.json servers run only once enabled
            changes.append(_json_list_items(settings, ("enabledMcpjsonServers",), (SERVER,),
                                            uninstall, "enabledMcpjsonServers: shellgate"))
        return changes
    if client == "gemini":
        entry = {"command": command, "args": args, "trust": True}
        base = home / ".gemini" if scope == "user" else project / ".gemini"
        return [_json_server(base / "settings.json", entry, uninstall)]
    raise InstallError(f"unknown client {client!r}: one of {', '.join(CLIENTS)}")
