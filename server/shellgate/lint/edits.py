"""Small text edits the quick fixes share."""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.lint.finding import Edit
from shellgate.rules.source import SourceSpan


def remove_element(elements: Sequence[SourceSpan], index: int) -> Edit:
    """Delete list element `index` with the separator next to it."""
    el = elements[index]
    if index + 1 < len(elements):
        nxt = elements[index + 1]
        return Edit(SourceSpan(el.path, el.line, el.column, nxt.line, nxt.column), "")
    if index > 0:
        prev = elements[index - 1]
        return Edit(
            SourceSpan(el.path, prev.end_line, prev.end_column, el.end_line, el.end_column), ""
        )
    return Edit(el, "")


def insert_after(span: SourceSpan, new_text: str) -> Edit:
    at = SourceSpan(span.path, span.end_line, span.end_column, span.end_line, span.end_column)
    return Edit(at, new_text)
