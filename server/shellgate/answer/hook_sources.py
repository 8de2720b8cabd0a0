"""The hook declarations of one Codex config layer, as written: a folder's `hooks.json` and its
`config.toml` `[[hooks.<Event>]]` (Codex 0.169.0/0.171.0 read both, the JSON first, for the
system folder `/etc/codex`, `$CODEX_HOME` and each trusted project's `.codex`).

Where Codex warns and skips a file it cannot read (not JSON, a wrong type), ShellGate stops
with a ConfigError naming the file, line and column: a broken hooks file never turns into
"no hooks" (a deliberate difference, docs/answerers.md). Handlers Codex skips with a warning
(an empty command, `prompt` and `agent` hooks) are kept with the reason, for `explain`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from shellgate.codexconfig.requirements import HOOK_EVENTS
from shellgate.codexconfig.tomlpos import locate, positions
from shellgate.codexconfig.trust import ConfigError, read_config

Position = tuple[int, int]
_At = Callable[..., Position]  # where a key path (event, group, "hooks", handler, key) is


@dataclass(frozen=True)
class Declared:
    """One handler as declared: `skip` says why Codex does not run it (None: it may run)."""

    event: str
    matcher: str | None
    kind: str  # "command", "prompt", "agent", "mcp_tool", …
    command: str
    timeout: int | None  # as written (the trust hash uses the normalised value)
    is_async: bool
    status_message: str | None  # part of the trust hash
    path: Path  # the declaring file
    group: int
    handler: int
    at: Position  # where the handler (or its group) is written
    matcher_at: Position
    skip: str | None = None


def hooks_json(folder: Path) -> list[Declared]:
    """`folder/hooks.json`'s handlers ([] when there is none). ConfigError when it cannot be
    read or is not what Codex's `HooksFile` accepts."""
    path = folder / "hooks.json"
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"failed to read hooks config: {exc}", path=str(path),
                          code="config-read", kind="read") from None  # fmt: skip
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"failed to parse hooks config: {exc.msg}", path=str(path),
                          line=exc.lineno, column=exc.colno, code="config-parse") from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise _wrong(path, "`hooks` must be an object of events", _json_at(text, "hooks"))
    return _declared(path, data.get("hooks", {}), lambda *keys: _json_at(text, *keys))


def config_toml(path: Path, config: Mapping[str, object] | None = None) -> list[Declared]:
    """The `[[hooks.<Event>]]` of a config.toml (`config`: its data when already read)."""
    data = read_config(path) if config is None else config
    table = data.get("hooks")
    if table is None:
        return []
    found = positions(path.read_text(encoding="utf-8")) if path.exists() else {}
    if not isinstance(table, dict):
        raise _wrong(path, "`hooks` must be a table", locate(found, ("hooks",)))
    return _declared(path, table, lambda *keys: locate(found, ("hooks", *keys)))


def _declared(path: Path, table: Mapping[str, object], at: _At) -> list[Declared]:
    out: list[Declared] = []
    for event in HOOK_EVENTS:
        groups = table.get(event, [])
        if not isinstance(groups, list):
            raise _wrong(path, f"`{event}` must be a list of matcher groups", at(event))
        for g, group in enumerate(groups):
            if not isinstance(group, dict):
                raise _wrong(path, f"`{event}` group {g} must be a table", at(event, g))
            matcher = group.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                raise _wrong(path, f"`{event}` group {g}: `matcher` must be a string",
                             at(event, g, "matcher"))  # fmt: skip
            handlers = group.get("hooks", [])
            if not isinstance(handlers, list):
                raise _wrong(path, f"`{event}` group {g}: `hooks` must be a list",
                             at(event, g, "hooks"))  # fmt: skip
            for h, handler in enumerate(handlers):
                out.append(_handler(path, event, matcher, g, h, handler, at))
    return out


def _handler(path: Path, event: str, matcher: str | None, g: int, h: int, handler: object,
             at: _At) -> Declared:  # fmt: skip
    where = at(event, g, "hooks", h)
    if not isinstance(handler, dict):
        raise _wrong(path, f"`{event}` group {g} hook {h} must be a table", where)
    kind, command = handler.get("type", "command"), handler.get("command", "")
    timeout, is_async = handler.get("timeout"), handler.get("async", False)
    if not isinstance(kind, str) or not isinstance(command, str):
        raise _wrong(path, f"`{event}` group {g} hook {h}: `type` and `command` must be "
                     "strings", where)  # fmt: skip
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int)
                                or timeout < 0):  # fmt: skip
        raise _wrong(path, f"`{event}` group {g} hook {h}: `timeout` must be a whole number "
                     "of seconds", at(event, g, "hooks", h, "timeout"))  # fmt: skip
    if not isinstance(is_async, bool):
        raise _wrong(path, f"`{event}` group {g} hook {h}: `async` must be true or false",
                     at(event, g, "hooks", h, "async"))  # fmt: skip
    status = handler.get("statusMessage")
    if status is not None and not isinstance(status, str):
        raise _wrong(path, f"`{event}` group {g} hook {h}: `statusMessage` must be a string",
                     at(event, g, "hooks", h, "statusMessage"))  # fmt: skip
    skip = None
    if kind in ("prompt", "agent"):
        skip = f"{kind} hooks are not supported yet"
    elif kind == "command" and not command.strip():
        skip = "empty hook command"
    return Declared(event, matcher, kind, command, timeout, is_async, status, path, g, h, where,
                    at(event, g, "matcher"), skip)  # fmt: skip


def _wrong(path: Path, message: str, at: Position) -> ConfigError:
    return ConfigError(f"invalid hooks config: {message}", path=str(path), line=at[0],
                       column=at[1], code="config-type")  # fmt: skip


def _json_at(text: str, *keys: str | int) -> Position:
    """Where the last string key of `keys` is first written after the ones before it (JSON has
    no position API in the standard library; close enough to point a person at it)."""
    at = 0
    for key in keys:
        if isinstance(key, str):
            found = text.find(json.dumps(key), at)
            if found < 0:
                break
            at = found
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1
