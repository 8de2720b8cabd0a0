"""From entries to `prefix_rule` lines: faithful where the meaning carries over, else refused.

Each rule names where it came from in its `justification`, carries its own command as a
`match` example and, for a rule of several words, the shorter command it does not cover as a
`not_match` example, so the real loader (and Codex's) checks it on every load.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from shellgate.importers.model import Entry, Kind
from shellgate.importers.risky import risk
from shellgate.rules.amend import json_string
from shellgate.rules.decision import Decision

_DECISIONS = {Kind.ALLOW: Decision.ALLOW, Kind.ASK: Decision.PROMPT, Kind.DENY: Decision.FORBIDDEN}
_MAX_QUOTED = 100


@dataclass(frozen=True, slots=True)
class Rule:
    entry: Entry
    pattern: tuple[str, ...]
    decision: Decision
    line: str  # the prefix_rule call, one line
    risky: str | None = None  # why an allow became prompt (or was kept, with --keep-risky)
    kept_risky: bool = False


@dataclass(frozen=True, slots=True)
class Refusal:
    entry: Entry
    reason: str


@dataclass(frozen=True, slots=True)
class Translation:
    rules: tuple[Rule, ...]
    refused: tuple[Refusal, ...]
    duplicates: tuple[tuple[Entry, Rule], ...]  # entries whose rule another entry already gave


def translate(entries: tuple[Entry, ...], *, keep_risky: bool = False) -> Translation:
    rules: list[Rule] = []
    refused: list[Refusal] = []
    duplicates: list[tuple[Entry, Rule]] = []
    seen: dict[tuple[tuple[str, ...], Decision], Rule] = {}
    for entry in entries:
        if entry.problem is not None or not entry.prefixes:
            refused.append(Refusal(entry, entry.problem or "nothing to match"))
            continue
        for pattern in entry.prefixes:
            decision = _DECISIONS[entry.kind]
            why = risk(pattern) if decision is Decision.ALLOW else None
            if why is not None and not keep_risky:
                decision = Decision.PROMPT
            key = (pattern, decision)
            if key in seen:
                duplicates.append((entry, seen[key]))
                continue
            rule = Rule(
                entry,
                pattern,
                decision,
                rule_line(entry, pattern, decision, why, keep_risky),
                why,
                keep_risky and why is not None,
            )
            seen[key] = rule
            rules.append(rule)
    return Translation(tuple(rules), tuple(refused), tuple(duplicates))


def justification(entry: Entry, risky: str | None, kept: bool) -> str:
    text = entry.origin.text
    if len(text) > _MAX_QUOTED:
        text = text[: _MAX_QUOTED - 1] + "…"
    words = f"imported from {entry.tool.title} {entry.origin.where()} ({entry.origin.key}: {text})"
    if risky is not None:
        words += (
            f"; kept as allow with --keep-risky although {risky}"
            if kept
            else f"; prompt instead of allow: {risky}"
        )
    return words


def rule_line(
    entry: Entry, pattern: tuple[str, ...], decision: Decision, risky: str | None, kept: bool
) -> str:
    parts = [
        "pattern=[" + ", ".join(json_string(w) for w in pattern) + "]",
        f"decision={json_string(decision.value)}",
        f"justification={json_string(justification(entry, risky, kept))}",
        f"match=[{json_string(shlex.join(pattern))}]",
    ]
    if len(pattern) > 1:
        parts.append(f"not_match=[{json_string(shlex.join(pattern[:-1]))}]")
    return f"prefix_rule({', '.join(parts)})"
