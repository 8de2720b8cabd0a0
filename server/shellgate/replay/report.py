"""What a replay found: counts, each rule's coverage, the rules never hit, and the commands
that ask most, each with the allow rule that would stop them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from shellgate.approval.amendments import AdmittedVariant
from shellgate.approval.context import ExecContext
from shellgate.lint.describe import pattern_text as text
from shellgate.replay.engine import Decided, Entry, Outcome, Replay, RuleKey, context_for, decide
from shellgate.replay.model import ReadStats
from shellgate.replay.variants import admitted
from shellgate.rules.amend import prefix_rule_line
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule

TOP_PREFIXES = 10


@dataclass(frozen=True, slots=True)
class RuleCoverage:
    key: RuleKey
    pattern: str
    decision: Decision
    layer: str | None
    hits: int  # history commands it matched, repeats included
    distinct: int
    last_seen: float | None
    examples: tuple[str, ...]  # a few commands it matched, most frequent first


@dataclass(frozen=True, slots=True)
class Suggestion:
    """An allow rule for the commands that ask most, and what it would change."""

    prefix: tuple[str, ...]
    asked: int  # history commands under this prefix that asked
    removes: int  # of those, how many the rule would let run unasked
    admits: tuple[AdmittedVariant, ...]
    examples: tuple[str, ...]

    @property
    def rule_text(self) -> str:

        return prefix_rule_line(self.prefix)


@dataclass(frozen=True, slots=True)
class Report:
    commands: int
    distinct: int
    outcomes: dict[Outcome, int]
    rules: tuple[RuleCoverage, ...]  # in load order
    suggestions: tuple[Suggestion, ...]
    stats: ReadStats
    sources: dict[str, int]  # commands per source format

    @property
    def never_hit(self) -> tuple[RuleCoverage, ...]:
        return tuple(r for r in self.rules if r.hits == 0)


def rule_key(rule: PrefixRule) -> RuleKey | None:
    span = rule.span
    return None if span is None else (span.path, span.line, span.column)


def pattern_text(rule: PrefixRule) -> str:
    return text(rule)


def coverage(entries: Sequence[Entry], policy: Policy) -> tuple[RuleCoverage, ...]:
    by_rule: dict[RuleKey, list[Entry]] = {}
    for entry in entries:
        for key in entry.decided.rules:
            by_rule.setdefault(key, []).append(entry)
    out: list[RuleCoverage] = []
    seen: set[RuleKey] = set()
    for rule in policy.rules:
        found = rule_key(rule)
        if found is None or found in seen:
            continue
        key = found
        seen.add(key)
        hit = sorted(by_rule.get(key, ()), key=lambda e: -e.count)
        times = [e.last_time for e in hit if e.last_time is not None]
        out.append(RuleCoverage(
            key, pattern_text(rule), rule.decision, rule.layer, sum(e.count for e in hit),
            len(hit), max(times) if times else None,
            tuple(e.last.text for e in hit[:5] if e.last is not None),
        ))  # fmt: skip
    return tuple(out)


def family(decided: Decided) -> tuple[str, ...] | None:
    """The program and subcommand of the first segment Codex's heuristics ask about (`git
    push`, `npm run`), or the program alone when its second word is a flag, a path or absent.
    A segment a prompt rule asks about gets none: an allow never outranks a stricter rule."""
    for segment in decided.explanation.segments:
        if segment.decision is not Decision.PROMPT or segment.rules:
            continue
        cmd = segment.command
        if len(cmd) >= 2 and _word(cmd[1]):
            return (cmd[0], cmd[1])
        return (cmd[0],)
    return None


def _word(token: str) -> bool:
    return bool(token) and token[0].isalpha() and all(c.isalnum() or c in "-_:" for c in token)


def suggestions(
    entries: Sequence[Entry], policy: Policy, context: ExecContext, top: int = TOP_PREFIXES
) -> tuple[Suggestion, ...]:
    asking = [e for e in entries if e.decided.outcome is Outcome.PROMPT]
    families: dict[tuple[str, ...], list[Entry]] = {}
    for entry in asking:
        fam = family(entry.decided)
        if fam is not None:
            families.setdefault(fam, []).append(entry)
    ranked = sorted(families.items(), key=lambda kv: (-sum(e.count for e in kv[1]), kv[0]))
    out: list[Suggestion] = []
    for prefix, group in ranked[:top]:
        trial = Policy(policy.rules, policy.network_rules, policy.host_executables)
        trial.add_prefix_rule(prefix, Decision.ALLOW)
        removes = 0
        for entry in group:

            again = decide(entry.key[0], trial, context_for(context, entry.key[1]))
            if again.outcome is Outcome.ALLOW:
                removes += entry.count
        if not removes:
            continue  # other parts of those commands ask too: this rule alone stops nothing
        group.sort(key=lambda e: -e.count)
        out.append(Suggestion(
            prefix, sum(e.count for e in group), removes, admitted(prefix, policy),
            tuple(e.last.text for e in group[:3] if e.last is not None),
        ))  # fmt: skip
    return tuple(out)


def build_report(
    result: Replay, policy: Policy, context: ExecContext, stats: ReadStats
) -> Report:
    entries = list(result.entries.values())
    outcomes = {o: 0 for o in Outcome}
    sources: Counter[str] = Counter()
    for entry in entries:
        outcomes[entry.decided.outcome] += entry.count
    for entry in entries:
        sources.update(entry.sources)
    return Report(
        result.commands, len(entries), outcomes, coverage(entries, policy),
        suggestions(entries, policy, context), stats, dict(sources),
    )  # fmt: skip
