"""Reading the loader's own parse (`rules.syntax`): arguments by name, source text, literals.

The loader gives every call with the spans of its arguments and their elements; these helpers
answer the editor's questions about them (which parameter a positional argument binds, what a
literal says) lazily, so a 10 000-rule file costs nothing until someone asks.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from shellgate.rules.rule import PrefixRule
from shellgate.rules.signature import builtin_specs
from shellgate.rules.source import SourceSpan
from shellgate.rules.syntax import Argument, Call

# A builtin call and the rules it produced (none for other builtins or when it failed).
RuleCall = tuple[Call, tuple[PrefixRule, ...]]


def param_index(call: Call, name: str) -> int | None:
    spec = builtin_specs().get(call.callee or "")
    if spec is None:
        return None
    for i, p in enumerate(spec.params):
        if p.name == name:
            return i
    return None


def arg(call: Call, name: str) -> Argument | None:
    """The argument bound to parameter `name`, by keyword or by position."""
    return call.argument(name, param_index(call, name))


def param_of(call: Call, argument: Argument) -> str | None:
    """The parameter an argument binds."""
    if argument.name is not None:
        return argument.name
    spec = builtin_specs().get(call.callee or "")
    if spec is None or argument.star or not 0 <= argument.index < len(spec.params):
        return None
    return spec.params[argument.index].name


def text(lines: Sequence[str], span: SourceSpan) -> str:
    """The source text of `span` (1-based, end exclusive)."""
    if span.line <= 0 or span.line > len(lines):
        return ""
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    parts = [lines[span.line - 1][span.column - 1 :]]
    parts += lines[span.line : span.end_line - 1]
    if span.end_line <= len(lines):
        parts.append(lines[span.end_line - 1][: span.end_column - 1])
    return "\n".join(parts)


def literal(lines: Sequence[str], span: SourceSpan) -> object:
    """The value of a literal (string, list of strings...) at `span`, or None."""
    try:
        return ast.literal_eval(text(lines, span))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def contains(span: SourceSpan, line: int, column: int) -> bool:
    """Is the 1-based (line, column) inside `span` (end inclusive, for a cursor at the end)?"""
    if line < span.line or line > span.end_line:
        return False
    if line == span.line and column < span.column:
        return False
    return not (line == span.end_line and column > span.end_column)
