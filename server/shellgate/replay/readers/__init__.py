"""One reader per history format. Each reads a file as a stream (a history can be a gigabyte),
yields `HistoryCommand`s and counts in `ReadStats` what it could not read; none raises."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib import import_module

from shellgate.replay.model import HistoryCommand, ReadStats

Reader = Callable[[str, ReadStats], Iterator[HistoryCommand]]

FORMATS = ("bash", "zsh", "fish", "codex", "claude-code", "gemini", "shellgate")


def reader_for(fmt: str) -> Reader:
    module = {"claude-code": "claude"}.get(fmt, fmt)
    read: Reader = import_module(f"shellgate.replay.readers.{module}").read
    return read
