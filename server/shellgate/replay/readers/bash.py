"""Bash's history file (`~/.bash_history`, or $HISTFILE).

Without `HISTTIMEFORMAT` every line is one command. With it, bash writes `#<epoch>` before each
entry, and on reading takes every line up to the next stamp as one entry (a multi-line command
kept with `lithist`): we read it the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers.lines import decode, text_lines

_STAMP = re.compile(rb"^#(\d{1,12})\s*$")
MAX_ENTRY_LINES = 1000


def read(path: str, stats: ReadStats) -> Iterator[HistoryCommand]:
    stamp: float | None = None
    start = 0
    body: list[str] = []
    stamped = False

    def flush() -> Iterator[HistoryCommand]:
        text = "\n".join(body).strip("\n")
        if text.strip():
            stats.entries += 1
            yield HistoryCommand(text, "bash", path, start, stamp)

    for number, raw in text_lines(path, stats):
        match = _STAMP.match(raw)
        if match:
            yield from flush()
            stamped, stamp, start, body = True, float(match.group(1)), number + 1, []
            continue
        text = decode(raw, path, number, stats)
        if text is None:
            continue
        if not stamped:
            if text.strip():
                stats.entries += 1
                yield HistoryCommand(text, "bash", path, number)
            continue
        if len(body) >= MAX_ENTRY_LINES:
            stats.skip(path, number, f"entry longer than {MAX_ENTRY_LINES} lines")
            continue
        body.append(text)
    if stamped:
        yield from flush()
