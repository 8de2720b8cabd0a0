"""Where each key and value of a TOML document is written: `tomllib` gives values, no positions.

Only positions come from here; the values are always tomllib's, so a document tomllib accepts is
read the same whatever this scanner makes of it (a position it cannot find is the parent's).
Paths are tuples of keys and array indexes, as the data nests: `("rules", "prefix_rules", 0,
"decision")`, whether the document wrote an inline table, a `[table]` or `[[array.of.tables]]`.
"""

from __future__ import annotations

import bisect
import contextlib
import re

Path = tuple[str | int, ...]
Position = tuple[int, int]  # 1-based line and column (characters)

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_WS = re.compile(r"[ \t]*")
_SCALAR = re.compile(r"[^,\]\}\s#]+")
_TOML_POSITION = re.compile(r"^(?P<message>.*) \(at line (?P<line>\d+), column (?P<col>\d+)\)$")


def toml_error_position(exc: Exception) -> tuple[str, int, int]:
    """tomllib's error as (message, line, column); (str(exc), 0, 0) when it names none."""
    found = _TOML_POSITION.match(str(exc))
    if found is None:
        return str(exc), 0, 0
    return found["message"], int(found["line"]), int(found["col"])


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.found: dict[Path, Position] = {}
        self._lines = [m.start() for m in re.finditer(r"\n", text)]

    def position(self, at: int) -> Position:
        line = bisect.bisect_left(self._lines, at)
        start = self._lines[line - 1] + 1 if line else 0
        return line + 1, at - start + 1

    def mark(self, path: Path, at: int) -> None:
        self.found.setdefault(path, self.position(at))

    def skip(self, newlines: bool) -> None:
        """Blanks and comments (and newlines, where the grammar allows them)."""
        text = self.text
        while self.at < len(text):
            c = text[self.at]
            if c in " \t\r" or (newlines and c == "\n"):
                self.at += 1
            elif c == "#":
                end = text.find("\n", self.at)
                self.at = len(text) if end < 0 else end
            else:
                return

    def key(self) -> list[tuple[str, int]]:
        """A dotted key: its parts with where each starts."""
        parts: list[tuple[str, int]] = []
        while True:
            self.skip(False)
            start = self.at
            if self.text.startswith(('"', "'"), self.at):
                parts.append((self.string(), start))
            else:
                m = _BARE.match(self.text, self.at)
                if m is None:
                    raise ValueError("key expected")
                parts.append((m.group(), start))
                self.at = m.end()
            self.skip(False)
            if not self.text.startswith(".", self.at):
                return parts
            self.at += 1

    def string(self) -> str:
        text, q = self.text, self.text[self.at]
        if text.startswith(q * 3, self.at):
            end = text.find(q * 3, self.at + 3)
            if end < 0:
                raise ValueError("unterminated string")
            while text.startswith(q, end + 3):  # up to two quotes may close the content
                end += 1
            raw = text[self.at + 3 : end]
            self.at = end + 3
            return raw
        i = self.at + 1
        out: list[str] = []
        while i < len(text) and text[i] != q:
            if q == '"' and text[i] == "\\" and i + 1 < len(text):
                out.append(_unescape(text, i))
                i += 2 if text[i + 1] not in "uU" else (6 if text[i + 1] == "u" else 10)
                continue
            if text[i] == "\n":
                raise ValueError("unterminated string")
            out.append(text[i])
            i += 1
        self.at = i + 1
        return "".join(out)

    def value(self, path: Path) -> None:
        self.skip(False)
        self.mark(path, self.at)
        c = self.text[self.at : self.at + 1]
        if c in ('"', "'"):
            self.string()
        elif c == "[":
            self.at += 1
            index = 0
            while True:
                self.skip(True)
                if self.text.startswith("]", self.at):
                    self.at += 1
                    return
                self.value((*path, index))
                index += 1
                self.skip(True)
                if self.text.startswith(",", self.at):
                    self.at += 1
        elif c == "{":
            self.at += 1
            while True:
                self.skip(False)
                if self.text.startswith("}", self.at):
                    self.at += 1
                    return
                self.pair(path)
                self.skip(False)
                if self.text.startswith(",", self.at):
                    self.at += 1
        else:
            m = _SCALAR.match(self.text, self.at)
            if m is None:
                raise ValueError("value expected")
            self.at = m.end()
            # a date-time may hold one space: `1979-05-27 07:32:00`
            m2 = re.match(r" \d\d:\d\d", self.text[self.at :])
            if m2 is not None:
                self.at = _SCALAR.match(self.text, self.at + 1).end()  # type: ignore[union-attr]

    def pair(self, table: Path) -> None:
        parts = self.key()
        path = table
        for name, start in parts:
            path = (*path, name)
            self.mark(path, start)
        self.skip(False)
        if not self.text.startswith("=", self.at):
            raise ValueError("= expected")
        self.at += 1
        self.value(path)

    def document(self) -> None:
        table: Path = ()
        arrays: dict[Path, int] = {}  # array-of-tables path (indexes resolved) -> last index
        text = self.text
        while True:
            self.skip(True)
            if self.at >= len(text):
                return
            if text.startswith("[", self.at):
                header = self.at
                double = text.startswith("[[", self.at)
                self.at += 2 if double else 1
                parts = self.key()
                self.at += 2 if double else 1
                path: Path = ()
                for i, (name, start) in enumerate(parts):
                    path = (*path, name)
                    last = i == len(parts) - 1
                    if last and double:
                        index = arrays.get(path, -1) + 1
                        arrays[path] = index
                        # a new element forgets the arrays nested in the one before
                        for kept in [
                            p for p in arrays if len(p) > len(path) and p[: len(path)] == path
                        ]:
                            del arrays[kept]
                        self.mark(path, start)
                        path = (*path, index)
                        self.mark(path, header)  # an element is its `[[…]]` header
                    else:
                        self.mark(path, start)
                        if path in arrays:
                            path = (*path, arrays[path])
                table = path
            else:
                self.pair(table)


def _unescape(text: str, i: int) -> str:
    c = text[i + 1]
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "\\": "\\"}
    if c in simple:
        return simple[c]
    width = 4 if c == "u" else 8 if c == "U" else 0
    try:
        return chr(int(text[i + 2 : i + 2 + width], 16)) if width else c
    except ValueError:
        return c


def positions(text: str) -> dict[Path, Position]:
    """Every key's position (a value's, for array elements), as far as the text could be read:
    a scan that stops early keeps what it found before."""
    scanner = _Scanner(text)
    with contextlib.suppress(ValueError, IndexError):
        scanner.document()
    return scanner.found


def locate(found: dict[Path, Position], path: Path) -> Position:
    """`path`'s position, else its nearest written ancestor's, else (1, 1)."""
    while path:
        if path in found:
            return found[path]
        path = path[:-1]
    return 1, 1
