"""What a check reports: a coded, located message with optional fixes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from shellgate.rules.source import SourceSpan


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text of `span` (end exclusive) with `new_text`."""

    span: SourceSpan
    new_text: str


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    preferred: bool = False


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    message: str
    span: SourceSpan
    fixes: tuple[Fix, ...] = field(default=())
    # Other places the message refers to (the earlier duplicate, the rule that wins...).
    related: tuple[tuple[SourceSpan, str], ...] = field(default=())
