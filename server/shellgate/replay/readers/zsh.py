"""Zsh's history file (`~/.zsh_history`, or $HISTFILE).

With `EXTENDED_HISTORY` an entry starts `: <start>:<elapsed>;`. A newline inside a command is
written as a backslash before the newline; zsh's "metafied" bytes (0x83, then the byte xor 32)
stand for bytes zsh treats as special, and are decoded back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers.lines import text_lines

_EXTENDED = re.compile(rb"^: ?(\d{1,12}):(\d+);")
_META = 0x83
MAX_ENTRY_LINES = 1000


def unmetafy(raw: bytes) -> bytes:
    if _META not in raw:
        return raw
    out = bytearray()
    flip = False
    for byte in raw:
        if flip:
            out.append(byte ^ 32)
            flip = False
        elif byte == _META:
            flip = True
        else:
            out.append(byte)
    return bytes(out)


def read(path: str, stats: ReadStats) -> Iterator[HistoryCommand]:
    parts: list[bytes] = []
    start = 0
    stamp: float | None = None
    for number, raw in text_lines(path, stats):
        if not parts:
            start = number
            match = _EXTENDED.match(raw)
            stamp = float(match.group(1)) if match else None
            raw = raw[match.end() :] if match else raw
        if raw.endswith(b"\\") and len(parts) < MAX_ENTRY_LINES:
            parts.append(raw[:-1])
            continue
        parts.append(raw)
        entry = b"\n".join(parts)
        parts = []
        try:
            text = unmetafy(entry).decode("utf-8")
        except UnicodeDecodeError:
            stats.skip(path, start, "not UTF-8")
            continue
        if text.strip():
            stats.entries += 1
            yield HistoryCommand(text, "zsh", path, start, stamp)
    if parts:
        stats.skip(path, start, "entry cut off at the end of the file")
