"""Suggestions for misspelt words: decisions, protocols, argument names."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

# Words people reach for from other tools, mapped to Codex's decisions.
_DECISION_SYNONYMS = {
    "deny": "forbidden",
    "denied": "forbidden",
    "block": "forbidden",
    "forbid": "forbidden",
    "reject": "forbidden",
    "never": "forbidden",
    "ask": "prompt",
    "confirm": "prompt",
    "approve": "prompt",
    "permit": "allow",
    "allowed": "allow",
    "yes": "allow",
    "always": "allow",
}


def suggest(word: str, choices: Sequence[str]) -> str | None:
    cleaned = word.strip().lower()
    if cleaned in choices:
        return cleaned
    close = difflib.get_close_matches(cleaned, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def suggest_decision(raw: str) -> str | None:
    choices = ("allow", "prompt", "forbidden")
    cleaned = raw.strip().lower()
    synonym = _DECISION_SYNONYMS.get(cleaned)
    if synonym is not None:
        return synonym
    return suggest(cleaned, choices)
