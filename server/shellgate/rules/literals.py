"""String literals as starlark-rust (Codex) reads them, rewritten for starlark-go and Python.

starlark-rust keeps an unknown escape as written (`"\\q"` is backslash and `q`, so are `\\N{..}`,
`\\8`, `\\ `), reads `\\xHH` and octal escapes above 0x7F as code points (starlark-go refuses
them), drops a bare carriage return inside a literal (and takes one in a comment), and lets an
f-string field hold a literal with the same quote or a backslash (Python 3.11 cannot). Before
evaluation such literals are rewritten to what means the same to starlark-go; the `ColumnMap`
maps columns of the rewritten text back (lines never change).
"""

from __future__ import annotations

import ast
import re

from shellgate.rules.instrument import ColumnMap

_START = re.compile(r"#|(?:(?<![\w])[rRbBfF]{1,2})?(?:'''|\"\"\"|'|\")")
_SIMPLE_ESCAPES = frozenset("\\'\"nrtabfv\n")
_OCTAL = re.compile(r"[0-7]{1,3}")
_HEX2 = re.compile(r"[0-9a-fA-F]{2}")
# What may need a rewrite; most files have none of it and are left alone at once.
_NEEDS = re.compile(r"\\(?:[^\\'\"nrtabfv\nuU0-7x]|x[89a-fA-F]|[2-7][0-7]{2})|\r(?!\n)")
_FSTRING_FIELD = re.compile(r"(?<![\w])[fF][rR]?['\"][^\n]*\{")
_IN_LITERAL = re.compile(r"[\\\r\n'\"{}]")


def _may_have_fstring(text: str) -> bool:
    return "f'" in text or 'f"' in text or "F'" in text or 'F"' in text


class _Edits:
    def __init__(self, text: str) -> None:
        self.text = text
        self.parts: list[str] = []
        self.done = 0  # text[:done] is in parts
        self.columns = ColumnMap()
        self.line, self.seen = 1, 0  # the line number at index `seen`

    def replace(self, start: int, end: int, new: str) -> None:
        text = self.text
        self.parts.append(text[self.done : start])
        self.parts.append(new)
        self.done = end
        self.line += text.count("\n", self.seen, start)
        self.seen = start
        line = self.line
        col = start - (text.rfind("\n", 0, start) + 1)
        if new != text[start:end] and (end - start) != len(new):
            self.columns.inserts.setdefault(line, []).append((col, end - start, len(new)))

    def result(self) -> str:
        self.parts.append(self.text[self.done :])
        return "".join(self.parts)


def normalize(text: str) -> tuple[str, ColumnMap | None]:
    """The text with its literals rewritten, and the column map (None when nothing moved)."""
    needs = ("\\" in text or "\r" in text) and _NEEDS.search(text) is not None
    if not needs and not (_may_have_fstring(text) and _FSTRING_FIELD.search(text)):
        return text, None
    edits = _Edits(text)
    i = 0
    n = len(text)
    while i < n:
        m = _START.search(text, i)
        if m is None:
            break
        if m.group() == "#":
            end = text.find("\n", m.start())
            end = n if end < 0 else end
            comment = text[m.start() : end]
            line_start = text.rfind("\n", 0, m.start()) + 1
            own_line = not text[line_start : m.start()].strip(" \t\f")
            if own_line and "\r" in comment.rstrip("\r"):
                # Codex takes a bare CR in a comment on its own line (not after code).
                edits.replace(m.start(), end, comment[:-1].replace("\r", " ") + comment[-1])
            i = end
            continue
        i = _literal(text, m.start(), m.end(), edits)
    rewritten = edits.result()
    return rewritten, (edits.columns if edits.columns.inserts else None)


def _literal(text: str, start: int, body: int, edits: _Edits) -> int:
    """Rewrite the literal opening at `start` (its body at `body`); return the index after it."""
    opening = text[start:body]
    prefix = opening.rstrip("'\"").lower()
    quote = opening[len(prefix) :]
    raw, fmt = "r" in prefix, "f" in prefix
    i, n = body, len(text)
    depth = 0  # inside an f-string's `{...}` field
    while i < n:
        hit = _IN_LITERAL.search(text, i)
        if hit is None:
            return n
        i = hit.start()
        c = text[i]
        if depth:
            if c in "'\"":
                i = _field_literal(text, i, quote, edits)
                continue
            depth += {"{": 1, "}": -1}.get(c, 0)
            i += 1
            continue
        if text.startswith(quote, i):
            return i + len(quote)
        if c == "\n" and len(quote) == 1:
            return i  # unterminated: the parser says so
        if c == "\\":
            i = i + 2 if raw else _escape(text, i, edits)
        elif c == "\r" and not text.startswith("\r\n", i):
            edits.replace(i, i + 1, "")
            i += 1
        elif fmt and c == "{":
            if text.startswith("{{", i):
                i += 2
            else:
                depth, i = 1, i + 1
        else:
            i += 1
    return n


def _escape(text: str, i: int, edits: _Edits) -> int:
    nxt = text[i + 1 : i + 2]
    if not nxt or nxt in _SIMPLE_ESCAPES or nxt in "uU":
        return i + 2
    if nxt == "\r":
        return i + 2  # an error in Codex too
    if nxt == "x":
        m = _HEX2.match(text, i + 2)
        if m is not None and int(m.group(), 16) > 0x7F:
            edits.replace(i, m.end(), f"\\u00{m.group()}")
        return m.end() if m else i + 2
    m = _OCTAL.match(text, i + 1)
    if m is not None:
        if int(m.group(), 8) > 0x7F:
            edits.replace(i, m.end(), f"\\u{int(m.group(), 8):04x}")
        return m.end()
    edits.replace(i, i + 1, "\\\\")  # unknown: the backslash stays
    return i + 1


def _field_literal(text: str, start: int, outer: str, edits: _Edits) -> int:
    """A string literal inside an f-string field. One Python 3.11 cannot read there (the
    outer quote, or a backslash) is replaced by a plain literal of the same value."""
    quote = text[start : start + 3] if text.startswith(("'''", '"""'), start) else text[start]
    i, n = start + len(quote), len(text)
    while i < n and not text.startswith(quote, i):
        if text[i] == "\n" and len(quote) == 1:
            return i
        i += 2 if text[i] == "\\" else 1
    end = min(i + len(quote), n)
    literal = text[start:end]
    if outer[0] not in literal and "\\" not in literal:
        return end
    try:

        value = ast.literal_eval(literal)
    except (SyntaxError, ValueError):
        return end
    other = "'" if outer[0] == '"' else '"'
    if isinstance(value, str) and other not in value and value.isprintable():
        edits.replace(start, end, other + value + other)
    return end


def first_code_tab(text: str) -> int | None:
    """Where the first tab Codex refuses is: one outside literals and comments, on a line that
    holds code (a blank or comment-only line may hold tabs)."""
    return first_in_code(text, "\t", blank_lines=True) if "\t" in text else None


def first_in_code(text: str, char: str, *, blank_lines: bool = False) -> int | None:
    """Where `char` first is outside literals and comments (with `blank_lines`, one on a line
    that holds no code does not count)."""
    scratch = _Edits(text)
    i, n = 0, len(text)
    while i <= n:
        m = _START.search(text, i)
        end = m.start() if m else n
        at = text.find(char, i, end)
        while at >= 0:
            if not (blank_lines and _on_blank_line(text, at)):
                return at
            at = text.find(char, at + 1, end)
        if m is None:
            return None
        if m.group() == "#":
            eol = text.find("\n", m.start())
            i = n if eol < 0 else eol
        else:
            i = _literal(text, m.start(), m.end(), scratch)
    return None


def _on_blank_line(text: str, at: int) -> bool:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    rest = text[at + 1 : len(text) if end < 0 else end].strip(" \t\f\r")
    return not text[start:at].strip(" \t\f") and (not rest or rest.startswith("#"))
