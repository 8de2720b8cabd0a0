"""`MatchedRule`: a rule (or heuristic) a decision rests on, as a question shows it.

A record (`shellgate.records`), standard library only: the broker protocol carries it in a
decision, on the hook's start-up path.
"""

from __future__ import annotations

from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from typing import Any


class MatchedRule(Record):
    decision: str
    prefix: tuple[str, ...]  # the matched tokens, or the whole command for a heuristic match
    source: str | None  # "path:line:column", None for heuristics
    justification: str | None = None
    heuristic: bool = False
    layer: str | None = None  # the rule's tier: system, user, project, cli, requirements
    person_only: bool = False  # the admin's prompt-user: only a person may answer

    @property
    def managed_prompt(self) -> bool:
        """An admin's rule (requirements.toml) that asks: Codex asks it every time."""
        return self.layer == "requirements" and self.decision == "prompt"

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision, "prefix": list(self.prefix), "source": self.source,
                "justification": self.justification, "heuristic": self.heuristic,
                "layer": self.layer, "personOnly": self.person_only}  # fmt: skip
