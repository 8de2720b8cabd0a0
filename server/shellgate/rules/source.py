"""Where something sits in a rules file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """1-based lines and columns; columns count characters; the end is exclusive."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
