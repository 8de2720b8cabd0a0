"""What a rule means once every layer is merged: its examples, and what decides each one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shellgate.lint.model import arg, literal
from shellgate.rules import shlex_rs
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy, PrefixRuleMatch
from shellgate.rules.rule import PrefixRule
from shellgate.rules.syntax import Call


@dataclass(frozen=True, slots=True)
class ExampleOutcome:
    param: str  # match or not_match
    tokens: tuple[str, ...]
    decision: Decision | None  # the strictest decision of the merged rules (None: no rule)
    deciders: tuple[PrefixRuleMatch, ...]  # the matches with that decision
    matches_own: bool  # does the call's own rule match it (what Codex validates)?


def example_tokens(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str):
        split = shlex_rs.split(value)
        return tuple(split) if split else None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def outcome(
    tokens: Sequence[str], param: str, merged: Policy, own: Sequence[PrefixRule]
) -> ExampleOutcome:
    matches = merged.matches_for(tokens, resolve_host_executables=True)
    decision = Decision.strictest(m.decision for m in matches)
    deciders = tuple(m for m in matches if m.decision is decision)
    own_policy = Policy(own)
    matches_own = bool(own_policy.matches_for(tokens, resolve_host_executables=True))
    return ExampleOutcome(param, tuple(tokens), decision, deciders, matches_own)


def example_outcomes(
    call: Call, own: Sequence[PrefixRule], lines: Sequence[str], merged: Policy
) -> list[ExampleOutcome]:
    out: list[ExampleOutcome] = []
    for param in ("match", "not_match"):
        argument = arg(call, param)
        for element in argument.elements if argument is not None else ():
            tokens = example_tokens(literal(lines, element))
            if tokens is not None:
                out.append(outcome(tokens, param, merged, own))
    return out
