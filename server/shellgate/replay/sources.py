"""Which files a replay reads, in which format: named ones (`FORMAT:PATH` or a PATH whose
format is recognised from its name and first line), or, when none is named, every history the
tools keep in their default places."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from shellgate.codexconfig import codex_home_folder
from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers import FORMATS, reader_for


@dataclass(frozen=True, slots=True)
class Source:
    format: str
    path: str


class SourceError(ValueError):
    pass


def default_sources(env: Mapping[str, str] | None = None) -> tuple[Source, ...]:
    """What exists of each tool's default history location for this user."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    data = env.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    state = env.get("XDG_STATE_HOME") or os.path.join(home, ".local", "state")
    zdot = env.get("ZDOTDIR") or home
    codex = codex_home_folder(env)
    claude = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    candidates = [
        Source("bash", os.path.join(home, ".bash_history")),
        Source("zsh", os.path.join(zdot, ".zsh_history")),
        Source("zsh", os.path.join(zdot, ".zhistory")),
        Source("fish", os.path.join(data, "fish", "fish_history")),
        Source("codex", os.path.join(codex, "sessions")),
        Source("claude-code", os.path.join(claude, "projects")),
        Source("gemini", os.path.join(env.get("GEMINI_CLI_HOME") or home, ".gemini", "tmp")),
        Source("shellgate", os.path.join(state, "shellgate", "transcripts")),
    ]
    histfile = env.get("HISTFILE")
    if histfile and all(c.path != histfile for c in candidates):
        candidates.insert(0, Source(guess_format(histfile) or "bash", histfile))
    return tuple(c for c in candidates if os.path.exists(c.path))


def parse_source(text: str) -> Source:
    """`FORMAT:PATH` or `PATH`; SourceError for an unknown format or a missing path."""
    fmt, sep, rest = text.partition(":")
    if sep and fmt in FORMATS:
        path = rest
    else:
        fmt, path = "", text
    path = os.path.expanduser(path)
    if not os.path.exists(path):
        raise SourceError(f"{path}: no such file or folder")
    if not fmt and not os.path.isdir(path):
        fmt = guess_format(path) or ""
        if not fmt:
            raise SourceError(f"{path}: unknown history format: name it, e.g. bash:{path}")
    return Source(fmt, path)


_HISTORY_NAMES = {".bash_history": "bash", ".zsh_history": "zsh", ".zhistory": "zsh",
                  "fish_history": "fish"}  # fmt: skip


def guess_format(path: str) -> str | None:
    """A file's format from its name, then from its first non-empty line."""
    name = os.path.basename(path)
    if name in _HISTORY_NAMES:
        return _HISTORY_NAMES[name]
    first = _first_line(path)
    if first is None:
        return None
    if first.startswith(b"{"):
        return _json_format(first, path)
    if first.startswith(b": ") and b";" in first:
        return "zsh"
    if first.startswith(b"- cmd:"):
        return "fish"
    return "bash" if not path.endswith((".jsonl", ".json")) else None


def _first_line(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            for _ in range(100):
                line = handle.readline(1 << 16)
                if not line:
                    return None
                if line.strip():
                    return line.strip()
    except OSError:
        return None
    return None


def _json_format(line: bytes, path: str) -> str | None:
    try:
        entry = json.loads(line)
    except ValueError:
        entry = None
    if not isinstance(entry, dict):
        # A truncated first line: fall back on the name the tool gives its files.
        name = os.path.basename(path)
        if name.startswith("rollout-"):
            return "codex"
        return "gemini" if name.startswith("session-") else None
    if "payload" in entry and "timestamp" in entry:
        return "codex"
    if "projectHash" in entry or "$set" in entry:
        return "gemini"
    if "method" in entry and "ts" in entry:
        return "shellgate"
    if "sessionId" in entry or entry.get("type") in ("user", "assistant", "summary"):
        return "claude-code"
    return None


def files_of(source: Source, stats: ReadStats) -> Iterator[Source]:
    """A file source as is; a folder's history files, each with its format (sorted)."""
    if not os.path.isdir(source.path):
        yield source
        return

    def lost(e: OSError) -> None:
        stats.skip(e.filename or source.path, None, f"cannot read: {e.strerror or e}", whole=True)

    for folder, dirs, names in os.walk(source.path, onerror=lost):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            if not _looks_like_history(source.format, name):
                continue
            fmt = source.format or guess_format(path)
            if fmt:
                yield Source(fmt, path)


def _looks_like_history(fmt: str, name: str) -> bool:
    if fmt == "codex":
        return name.startswith("rollout-") and name.endswith(".jsonl")
    if fmt in ("claude-code", "gemini", "shellgate"):
        return name.endswith(".jsonl")
    if not fmt:
        return name.endswith(".jsonl") or name in _HISTORY_NAMES
    return True


def read_sources(sources: Sequence[Source], stats: ReadStats) -> Iterator[HistoryCommand]:
    for source in sources:
        for one in files_of(source, stats):
            yield from reader_for(one.format)(one.path, stats)
