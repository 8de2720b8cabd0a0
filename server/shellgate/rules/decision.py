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
        return _RANK[self._value_]

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
        best_rank = -1
        for d in decisions:
            rank = _RANK[d._value_]
            if rank > best_rank:
                best, best_rank = d, rank
        return best


# Keyed by value: an enum member's hash is Enum.__hash__, Python code, several times slower.
_RANK = {"allow": 0, "prompt": 1, "forbidden": 2}
