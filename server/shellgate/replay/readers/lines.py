"""Reading a file line by line without trusting it: binary junk and bad UTF-8 are counted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from shellgate.replay.model import ReadStats

# A longer line is not a command anyone typed: skipped rather than held in memory whole.
MAX_LINE = 1 << 20


def text_lines(path: str, stats: ReadStats, *, meta: bool = False) -> Iterator[tuple[int, bytes]]:
    """(1-based number, raw line without its newline); unreadable files and over-long or
    NUL-holding lines are skipped and counted. `meta` keeps zsh's metafied bytes."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, also on a generator close
    except OSError as exc:
        stats.skip(path, None, f"cannot read: {exc.strerror or exc}", whole=True)
        return
    stats.files += 1
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE + 1)
            except OSError as exc:
                stats.skip(path, number + 1, f"read error: {exc.strerror or exc}", whole=True)
                return
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                stats.skip(path, number, "line longer than 1 MiB")
                while raw and not raw.endswith(b"\n"):  # drop the rest of that line
                    raw = handle.readline(MAX_LINE + 1)
                continue
            raw = raw.rstrip(b"\n").removesuffix(b"\r")
            if b"\0" in raw:
                stats.skip(path, number, "binary data")
                continue
            yield number, raw


def decode(raw: bytes, path: str, number: int, stats: ReadStats) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        stats.skip(path, number, "not UTF-8")
        return None


def json_lines(path: str, stats: ReadStats) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each JSON object of a JSON-lines file; a truncated or broken line is skipped, counted."""
    for number, raw in text_lines(path, stats):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            stats.skip(path, number, "not a JSON line (truncated?)")
            continue
        if isinstance(value, dict):
            yield number, value
        else:
            stats.skip(path, number, "a JSON line that is not an object")


def iso_time(text: object) -> float | None:
    """Seconds since the epoch of an ISO 8601 stamp (`2026-12-01T20:14:51.033Z`), or None."""
    if not isinstance(text, str):
        return None

    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
