"""A rule's verdict, ordered by strictness: allow < prompt < forbidden."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class Decision(Enum):
    ALLOW = "allow"
    PROMPT = "prompt"
    FORBIDDEN = "forbidden"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @classmethod
    def parse(cls, raw: str) -> Decision:
        """Codex's `Decision::parse`: exact, case-sensitive, no trimming."""
        try:
            return cls(raw)
        except ValueError:
            raise ValueError(f"invalid decision: {raw}") from None

    @staticmethod
    def strictest(decisions: Iterable[Decision]) -> Decision | None:
        best: Decision | None = None
        for d in decisions:
            if best is None or d.rank > best.rank:
                best = d
        return best


_RANK = {Decision.ALLOW: 0, Decision.PROMPT: 1, Decision.FORBIDDEN: 2}
