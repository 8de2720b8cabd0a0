"""Fish's history (`~/.local/share/fish/fish_history`, or $XDG_DATA_HOME/fish/…).

A YAML-like list that fish writes and reads itself (not YAML: fish's own escaping):

    - cmd: git commit -m 'two\\nlines'
      when: 1764620000
      paths:
        - a.txt

In `cmd`, fish writes a newline as `\\n` and a backslash as `\\\\`.
"""

from __future__ import annotations

from collections.abc import Iterator

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers.lines import decode, text_lines


def unescape(text: str) -> str:
    out: list[str] = []
    chars = iter(text)
    for c in chars:
        if c != "\\":
            out.append(c)
            continue
        nxt = next(chars, "")
        out.append({"n": "\n", "\\": "\\"}.get(nxt, "\\" + nxt))
    return "".join(out)


def read(path: str, stats: ReadStats) -> Iterator[HistoryCommand]:
    cmd: str | None = None
    start = 0
    when: float | None = None

    def entry() -> Iterator[HistoryCommand]:
        if cmd is not None and cmd.strip():
            stats.entries += 1
            yield HistoryCommand(cmd, "fish", path, start, when)

    for number, raw in text_lines(path, stats):
        text = decode(raw, path, number, stats)
        if text is None:
            continue
        if text.startswith("- cmd:"):
            yield from entry()
            cmd, start, when = unescape(text[len("- cmd:") :].lstrip(" ")), number, None
        elif text.startswith("  when:") and cmd is not None:
            try:
                when = float(text[len("  when:") :].strip())
            except ValueError:
                stats.skip(path, number, "`when:` is not a number")
        elif text.startswith("  ") or not text.strip():
            continue  # `paths:` and its items, or a blank line
        else:
            stats.skip(path, number, "not a fish history line")
    yield from entry()
