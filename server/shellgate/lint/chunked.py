"""Re-evaluate only what an edit touched: a rules file in independent chunks, cached.

Most rules files are nothing but top-level `prefix_rule(...)` / `network_rule(...)` calls. In
such a file every call stands alone (no names to share, nothing to carry), so evaluating the
file in chunks of calls gives exactly what evaluating it whole gives, provided the first error
is picked as Codex picks it: evaluation errors in file order, then failing examples (validated
after the whole file). An edit then costs the evaluation of its own chunk; the others come
from the cache (moved to their new lines when lines were inserted above them).

Anything else falls back to one whole-file evaluation: `def`, assignments, loops, `load`,
`host_executable` (it changes how later examples resolve), and any static error (syntax,
undefined names: Codex reports those before running anything).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import replace
from itertools import pairwise

from shellgate.lint.examples import EXAMPLE_CODES
from shellgate.rules.errors import RulesError
from shellgate.rules.loader import ParsedFile, parse_text
from shellgate.rules.source import SourceSpan
from shellgate.rules.syntax import Argument, Call

# A line starting at column 0 with something that can begin a statement.
_STATEMENT_LINE = re.compile(r"^[^\s#)\]}\"'\\]", re.MULTILINE)
_BUILTIN_CALL = re.compile(r"(?:prefix_rule|network_rule)\s*\(")
# Errors Codex reports before evaluating anything: chunks cannot order them; evaluate whole.
STATIC_CODES = frozenset(
    {
        "syntax-error",
        "undefined-name",
        "too-deep",
        "too-complex",
        "too-many-steps",
        "internal-error",
    }
)
CHUNK_MIN, CHUNK_MAX = 4, 24  # statements per chunk (content-defined cut points in between)


def statement_starts(text: str) -> list[int] | None:
    """Offsets of the top-level statements when the file is only builtin calls, else None."""
    if "host_executable" in text:
        return None
    starts = []
    for m in _STATEMENT_LINE.finditer(text):
        if not _BUILTIN_CALL.match(text, m.start()):
            return None
        starts.append(m.start())
    return starts


def _chunks(text: str, starts: list[int]) -> list[tuple[int, int]]:
    """(start, end) offsets; cut points depend on the statements' text, so an edit in one
    statement moves at most one cut point."""
    if not starts:
        return [(0, len(text))]
    bounds = [0]
    count = 0
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        count += 1
        if i + 1 == len(starts):
            break
        cut = zlib.crc32(text[start:end].encode("utf-8", "surrogatepass")) % 8 == 0
        if count >= CHUNK_MAX or (count >= CHUNK_MIN and cut):
            bounds.append(end)
            count = 0
    bounds.append(len(text))
    return list(pairwise(bounds))


def _span(s: SourceSpan, delta: int) -> SourceSpan:
    return SourceSpan(s.path, s.line + delta, s.column, s.end_line + delta, s.end_column)


def _call(c: Call, d: int) -> Call:
    args = tuple(
        Argument(
            a.name,
            a.index,
            _span(a.span, d),
            _span(a.value_span, d),
            tuple(_span(e, d) for e in a.elements),
            a.star,
        )
        for a in c.arguments
    )
    return Call(
        c.callee, _span(c.span, d), _span(c.callee_span, d), (c.lparen[0] + d, c.lparen[1]), args
    )


def _error(e: RulesError, d: int) -> RulesError:
    if e.line <= 0:
        return e
    return RulesError(
        e.message,
        path=e.path,
        line=e.line + d,
        column=e.column,
        end_line=e.end_line + d,
        end_column=e.end_column,
        code=e.code,
        kind=e.kind,
    )


def shifted(p: ParsedFile, d: int) -> ParsedFile:
    """The same parse, `d` lines further down."""
    if d == 0:
        return p
    return ParsedFile(
        p.path,
        tuple(_call(c, d) for c in p.calls),
        tuple(replace(r, span=_span(r.span, d)) if r.span else r for r in p.rules),
        p.host_executables,
        tuple(replace(r, span=_span(r.span, d)) if r.span else r for r in p.network_rules),
        None if p.error is None else _error(p.error, d),
        tuple(_call(c, d) for c in p.all_calls),
    )


class ChunkedParser:
    """`parse_text` for one document, remembering the chunks of its previous version."""

    def __init__(self) -> None:
        self._base: dict[tuple[str, str], ParsedFile] = {}
        self._placed: dict[tuple[str, str, int], ParsedFile] = {}

    def parse(self, text: str, path: str) -> ParsedFile:
        starts = statement_starts(text)
        if starts is None or len(starts) < 2 * CHUNK_MIN:
            return parse_text(text, path)
        base: dict[tuple[str, str], ParsedFile] = {}
        placed: dict[tuple[str, str, int], ParsedFile] = {}
        parts: list[ParsedFile] = []
        lasts: list[int] = []  # the last line of each chunk
        line = 1
        for start, end in _chunks(text, starts):
            chunk = text[start:end]
            key = (chunk, path, line)
            part = self._placed.get(key)
            if part is None:
                raw = self._base.get((chunk, path)) or base.get((chunk, path))
                if raw is None:
                    raw = parse_text(chunk, path)
                base[(chunk, path)] = raw
                part = shifted(raw, line - 1)
            else:
                base[(chunk, path)] = self._base[(chunk, path)]
            placed[key] = part
            parts.append(part)
            line += chunk.count("\n")
            lasts.append(line)
        self._base, self._placed = base, placed  # keep only what this version uses
        return _merge(parts, lasts, text, path)


def _merge(parts: list[ParsedFile], lasts: list[int], text: str, path: str) -> ParsedFile:
    errors = [p.error for p in parts if p.error is not None]
    static = [(i, p.error) for i, p in enumerate(parts) if p.error and p.error.code in STATIC_CODES]
    if static:
        i, first = static[0]
        # A chunk that parses alone leaves the tokenizer where a new file starts, so the first
        # syntax error is the first chunk's own, unless the chunk's end is part of it (an
        # unclosed bracket or string runs on into the next chunk): then read the whole file.
        if first.code != "syntax-error" or not 0 < first.line < lasts[i]:
            return parse_text(text, path)
        calls = tuple(c for p in parts for c in p.calls)
        return ParsedFile(
            path, calls, (), {}, (), first, tuple(c for p in parts for c in p.all_calls)
        )
    cut = len(parts)  # an evaluation error stops evaluation: nothing after its chunk runs
    error = None
    for i, p in enumerate(parts):
        if p.error is not None and p.error.code not in EXAMPLE_CODES:
            cut, error = i + 1, p.error
            break
    if error is None and errors:
        error = errors[0]  # examples are validated after the whole file, in call order
    kept = parts[:cut]
    return ParsedFile(
        path,
        tuple(c for p in parts for c in p.calls),
        tuple(r for p in kept for r in p.rules),
        {},
        tuple(r for p in kept for r in p.network_rules),
        error,
        tuple(c for p in parts for c in p.all_calls),
    )
