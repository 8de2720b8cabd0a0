"""JSON and JSONC with the position of every value.

`json` gives no positions, and the report must say where each entry came from. Strict JSON is
what Claude Code reads; Gemini CLI strips comments first; VS Code reads JSONC (comments and
trailing commas). Duplicate keys keep the last value, as `JSON.parse` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shellgate.importers.errors import ImportInputError
from shellgate.importers.source import position

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_MAX_DEPTH = 200


@dataclass(frozen=True, slots=True)
class Node:
    """A JSON value: str, int, float, bool, None, list[Node] or dict[str, Node]."""

    value: object
    line: int
    column: int
    keys: tuple[tuple[str, int, int], ...] = ()  # an object's keys with their positions

    def key_position(self, key: str) -> tuple[int, int]:
        """Where `key` of this object is written (the value's position when unknown)."""
        for name, line, column in reversed(self.keys):
            if name == key:
                return line, column
        return self.line, self.column


class _Parser:
    def __init__(self, text: str, path: str, *, comments: bool, trailing_commas: bool) -> None:
        self.text = text
        self.path = path
        self.comments = comments
        self.trailing_commas = trailing_commas
        self.i = 0

    def fail(self, message: str, offset: int | None = None) -> ImportInputError:
        line, column = position(self.text, self.i if offset is None else offset)
        return ImportInputError(
            f"invalid JSON: {message}", path=self.path, line=line, column=column
        )

    def blank(self) -> None:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c in " \t\r\n":
                self.i += 1
            elif c == "/" and text.startswith("//", self.i):
                if not self.comments:
                    raise self.fail("comments are not allowed in this file")
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            elif c == "/" and text.startswith("/*", self.i):
                if not self.comments:
                    raise self.fail("comments are not allowed in this file")
                end = text.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment")
                self.i = end + 2
            else:
                return

    def document(self) -> Node:
        self.blank()
        node = self.value(0)
        self.blank()
        if self.i != len(self.text):
            raise self.fail("unexpected text after the value")
        return node

    def value(self, depth: int) -> Node:
        if depth > _MAX_DEPTH:
            raise self.fail(f"nested deeper than {_MAX_DEPTH} levels")
        if self.i >= len(self.text):
            raise self.fail("unexpected end of file, expected a value")
        line, column = position(self.text, self.i)
        c = self.text[self.i]
        if c == "{":
            keys: list[tuple[str, int, int]] = []
            return Node(self.obj(depth, keys), line, column, tuple(keys))
        if c == "[":
            return Node(self.array(depth), line, column)
        if c == '"':
            return Node(self.string(), line, column)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return Node(val, line, column)
        m = _NUMBER.match(self.text, self.i)
        if m:
            self.i = m.end()
            literal = m.group()
            number: float | int = (
                float(literal) if any(ch in literal for ch in ".eE") else int(literal)
            )
            return Node(number, line, column)
        raise self.fail(f"unexpected character {c!r}")

    def obj(self, depth: int, keys: list[tuple[str, int, int]]) -> dict[str, Node]:
        out: dict[str, Node] = {}
        self.i += 1
        self.blank()
        if self.text.startswith("}", self.i):
            self.i += 1
            return out
        while True:
            self.blank()
            if self.i >= len(self.text) or self.text[self.i] != '"':
                if self.text.startswith("}", self.i) and out:
                    if not self.trailing_commas:
                        raise self.fail("trailing comma before }")
                    self.i += 1
                    return out
                raise self.fail("expected a string key")
            key_line, key_column = position(self.text, self.i)
            key = self.string()
            keys.append((key, key_line, key_column))
            self.blank()
            if not self.text.startswith(":", self.i):
                raise self.fail("expected ':' after the key")
            self.i += 1
            self.blank()
            out[key] = self.value(depth + 1)
            self.blank()
            if self.text.startswith(",", self.i):
                self.i += 1
                continue
            if self.text.startswith("}", self.i):
                self.i += 1
                return out
            raise self.fail("expected ',' or '}'")

    def array(self, depth: int) -> list[Node]:
        out: list[Node] = []
        self.i += 1
        self.blank()
        if self.text.startswith("]", self.i):
            self.i += 1
            return out
        while True:
            self.blank()
            if self.text.startswith("]", self.i) and out:
                if not self.trailing_commas:
                    raise self.fail("trailing comma before ]")
                self.i += 1
                return out
            out.append(self.value(depth + 1))
            self.blank()
            if self.text.startswith(",", self.i):
                self.i += 1
                continue
            if self.text.startswith("]", self.i):
                self.i += 1
                return out
            raise self.fail("expected ',' or ']'")

    def string(self) -> str:
        text = self.text
        start = self.i
        self.i += 1
        parts: list[str] = []
        while True:
            if self.i >= len(text):
                raise self.fail("unterminated string", start)
            c = text[self.i]
            if c == '"':
                self.i += 1
                return "".join(parts)
            if c == "\\":
                esc = text[self.i + 1 : self.i + 2]
                if esc in _ESCAPES:
                    parts.append(_ESCAPES[esc])
                    self.i += 2
                elif esc == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[self.i + 2 : self.i + 6]):
                    code = int(text[self.i + 2 : self.i + 6], 16)
                    low = text[self.i + 6 : self.i + 12]
                    if 0xD800 <= code < 0xDC00 and re.fullmatch(
                        r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", low
                    ):
                        code = 0x10000 + ((code - 0xD800) << 10) + (int(low[2:], 16) - 0xDC00)
                        self.i += 6
                    elif 0xD800 <= code < 0xE000:
                        raise self.fail("a \\u escape that is half a surrogate pair")
                    parts.append(chr(code))
                    self.i += 6
                else:
                    raise self.fail("invalid escape in string")
                continue
            if ord(c) < 0x20:
                raise self.fail("control character in string (write it as \\n or \\t)")
            parts.append(c)
            self.i += 1


def parse_json(
    text: str, path: str, *, comments: bool = False, trailing_commas: bool = False
) -> Node:
    """Parse `text`; ImportInputError naming the line and column of the first problem."""
    return _Parser(text, path, comments=comments, trailing_commas=trailing_commas).document()


def plain(node: Node) -> object:
    """The value without positions."""
    if isinstance(node.value, dict):
        return {k: plain(v) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [plain(v) for v in node.value]
    return node.value
