"""Library positions (1-based lines, 1-based character columns) <-> LSP positions.

LSP counts columns in the negotiated encoding's code units (UTF-16 unless the client offers
better); ASCII lines, the usual case, need no work.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from shellgate.lint.finding import Severity
from shellgate.rules.source import SourceSpan

SEVERITY = {
    Severity.ERROR: T.DiagnosticSeverity.Error,
    Severity.WARNING: T.DiagnosticSeverity.Warning,
    Severity.INFO: T.DiagnosticSeverity.Information,
    Severity.HINT: T.DiagnosticSeverity.Hint,
}


def encoding(ls: LanguageServer) -> str:
    """The negotiated position encoding: "utf-8", "utf-16" (the default) or "utf-32"."""
    kind = ls.workspace.position_encoding
    value = getattr(kind, "value", kind)
    return str(value) if value else "utf-16"


def _units(text: str, encoding: str) -> int:
    if text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _chars(line: str, units: int, encoding: str) -> int:
    """How many characters of `line` fit in `units` code units."""
    if line.isascii() or encoding == "utf-32":
        return min(units, len(line))
    count = 0
    for i, ch in enumerate(line):
        if count >= units:
            return i
        o = ord(ch)
        if encoding == "utf-8":
            count += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
        else:
            count += 2 if o >= 0x10000 else 1
    return len(line)


def position(lines: Sequence[str], line: int, column: int, encoding: str) -> T.Position:
    """From 1-based (line, column) to an LSP position; out-of-range values are clamped."""
    index = max(0, line - 1)
    if index >= len(lines):
        return T.Position(line=max(0, len(lines) - 1) if lines else 0, character=0)
    text = lines[index]
    col = min(max(0, column - 1), len(text))
    return T.Position(line=index, character=_units(text[:col], encoding))


def to_range(lines: Sequence[str], span: SourceSpan, encoding: str) -> T.Range:
    if span.line <= 0:  # no position: the start of the file
        return T.Range(T.Position(0, 0), T.Position(0, 0))
    return T.Range(
        position(lines, span.line, span.column, encoding),
        position(lines, span.end_line, span.end_column, encoding),
    )


def from_position(lines: Sequence[str], pos: T.Position, encoding: str) -> tuple[int, int]:
    """From an LSP position to 1-based (line, column in characters)."""
    if pos.line >= len(lines):
        return pos.line + 1, 1
    return pos.line + 1, _chars(lines[pos.line], pos.character, encoding) + 1


def from_range(lines: Sequence[str], rng: T.Range, encoding: str, path: str) -> SourceSpan:
    sl, sc = from_position(lines, rng.start, encoding)
    el, ec = from_position(lines, rng.end, encoding)
    return SourceSpan(path, sl, sc, el, ec)
