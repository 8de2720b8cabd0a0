"""Editing an agent's own configuration files for `shellgate hook install` and `shellgate mcp
install`: Claude Code's and Gemini CLI's JSON settings, Codex's config.toml.

A file that does not parse, or whose shape we cannot edit safely, is refused with a ConfigError
(file, line and column where the parser gives them) and left as it was. A file already right is
not touched; one that changes is copied to `<name>.shellgate-<time>.bak` first (every state
kept, the earliest is the file as it was before ShellGate), then replaced atomically, keeping
its mode.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A configuration file we cannot edit safely: nothing was written to it."""


@dataclass(frozen=True)
class Change:
    path: Path
    what: str
    changed: bool = True  # False: already as wanted, not touched
    backup: Path | None = None


def read_json(path: Path) -> dict[str, Any]:
    """The object a JSON settings file holds ({} when there is no file)."""
    if not path.exists():
        return {}
    try:
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); "
                          "fix it or move it away, nothing was written") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}:{not_utf8_at(raw, exc.start)}: not UTF-8 (byte "
                          f"0x{raw[exc.start]:02x}); fix it or move it away, nothing was "
                          "written") from None  # fmt: skip
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1:1: expected a JSON object; nothing was written")
    return data


def not_utf8_at(raw: bytes, start: int) -> str:
    """`line:column` of the byte at `start` (the column in characters, as editors count)."""
    line_start = raw.rfind(b"\n", 0, start) + 1
    column = len(raw[line_start:start].decode("utf-8", errors="replace")) + 1
    line = raw.count(b"\n", 0, start) + 1
    return f"{line}:{column}"


def member(data: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    """`data[key]`, created empty (an object or a list) when absent; refused when another type."""
    value = data.setdefault(key, kind())
    if not isinstance(value, kind):
        noun = "an object" if kind is dict else "a list"
        raise ConfigError(f"{path}: `{key}` is not {noun}; nothing was written")
    return value


def json_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def edit_json(path: Path, what: str, edit: Callable[[dict[str, Any]], object]) -> Change:
    """Apply `edit(data)` to the file's object; written only when that changed it."""
    data = read_json(path)
    before = copy.deepcopy(data)
    edit(data)
    return save_json(path, what, data, before)


def save_json(path: Path, what: str, data: dict[str, Any], before: dict[str, Any]) -> Change:
    if data == before:  # already right, however it is formatted: its bytes are kept
        return Change(path, what, False)
    return save(path, what, json_text(data))


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """config.toml's text and its parse ("" and {} when there is no file)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return text, parse_toml(path, text, "not valid TOML")


def parse_toml(path: Path, text: str, problem: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = _TOML_AT.search(str(exc))
        where = f"{path}:{at[1]}:{at[2]}" if at else str(path)
        raise ConfigError(f"{where}: {problem} ({exc}); nothing was written") from None


def save(path: Path, what: str, text: str) -> Change:
    """Write `text` unless the file holds it already; back the old file up first."""
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return Change(path, what, False)
    copy_ = backup(path) if old is not None else None
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.shellgate-tmp")
    tmp.write_text(text, encoding="utf-8")
    if old is not None:
        shutil.copymode(path, tmp)
    os.replace(tmp, path)
    return Change(path, what, True, copy_)


def backup(path: Path) -> Path:
    """A copy of `path` as it is now, named `<name>.shellgate-<time>.bak` (never overwritten)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    each = path.with_name(f"{path.name}.shellgate-{stamp}.bak")
    n = 1
    while each.exists():
        each = path.with_name(f"{path.name}.shellgate-{stamp}-{n}.bak")
        n += 1
    shutil.copy2(path, each)
    return each
