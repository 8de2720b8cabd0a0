"""Rules that never decide: duplicates, and rules a broader, stricter (or equal) rule covers.

Strictest wins in Codex, so a rule whose every match is also matched by a broader rule with a
stricter decision can never change an outcome. Indexed so a 10 000-rule file stays fast: plain
patterns by their token prefix, patterns with alternatives compared per first token.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.lint.describe import pattern_text
from shellgate.lint.finding import Edit, Finding, Fix, Severity
from shellgate.lint.model import RuleCall, arg
from shellgate.rules.rule import PrefixRule
from shellgate.rules.source import SourceSpan
from shellgate.rules.syntax import Call

Owned = tuple[int, PrefixRule]  # (index of the call that wrote it, rule)


def covers(broad: PrefixRule, narrow: PrefixRule) -> bool:
    """Does `broad` match every command `narrow` matches?"""
    if broad.first != narrow.first or len(broad.rest) > len(narrow.rest):
        return False
    return all(set(n) <= set(b) for b, n in zip(broad.rest, narrow.rest, strict=False))


def _plain(rule: PrefixRule) -> tuple[str, ...] | None:
    out = [rule.first]
    for alts in rule.rest:
        if len(set(alts)) != 1:
            return None
        out.append(alts[0])
    return tuple(out)


def rule_target(call: Call) -> SourceSpan:
    pattern = arg(call, "pattern")
    return pattern.value_span if pattern is not None else call.span


def _delete_call(call: Call, lines: Sequence[str]) -> Fix:
    """Remove the call's whole lines when it stands alone on them, else just its text."""
    s = call.span
    before = lines[s.line - 1][: s.column - 1] if s.line - 1 < len(lines) else ""
    after = lines[s.end_line - 1][s.end_column - 1 :] if s.end_line - 1 < len(lines) else ""
    if not before.strip() and not after.strip():
        span = SourceSpan(s.path, s.line, 1, s.end_line + 1, 1)
    else:
        span = s
    return Fix("Delete this rule", (Edit(span, ""),), preferred=True)


def overlap_findings(rule_calls: Sequence[RuleCall], lines: Sequence[str]) -> list[Finding]:
    calls = [c for c, _ in rule_calls]
    owned: list[Owned] = [(i, r) for i, (_, rules) in enumerate(rule_calls) for r in rules]
    plains = [_plain(r) for _, r in owned]
    by_plain: dict[tuple[str, ...], list[Owned]] = {}
    # Patterns with alternatives, by (first token, each alternative of the second position):
    # a rule they cover has its second token among those alternatives.
    with_alts: dict[tuple[str, str], list[Owned]] = {}
    for item, key in zip(owned, plains, strict=True):
        if key is None:
            for alt in set(item[1].rest[0]):
                with_alts.setdefault((item[1].first, alt), []).append(item)
        else:
            by_plain.setdefault(key, []).append(item)

    reported: set[tuple[int, str]] = set()
    findings: list[Finding] = []

    def report(index: int, code: str, message: str, other: Owned) -> None:
        if (index, code) in reported:
            return
        reported.add((index, code))
        call, other_call = calls[index], calls[other[0]]
        fixes = (_delete_call(call, lines),) if code != "shadowed-rule" else ()
        findings.append(
            Finding(
                code,
                Severity.WARNING if code != "redundant-rule" else Severity.INFO,
                message,
                rule_target(call),
                fixes,
                ((rule_target(other_call), "the rule that decides instead"),),
            )
        )

    for (index, rule), plain in zip(owned, plains, strict=True):
        candidates: list[Owned] = (
            list(with_alts.get((rule.first, rule.rest[0][0]), ())) if rule.rest else []
        )
        tokens: list[str] = [rule.first]
        for k in range(len(rule.rest) + 1):
            if k > 0:
                alts = set(rule.rest[k - 1])
                if len(alts) != 1:
                    break
                tokens.append(next(iter(alts)))
            candidates.extend(by_plain.get(tuple(tokens), ()))
        for other in candidates:
            other_index, broad = other
            if other_index == index or not covers(broad, rule):
                continue
            same_pattern = (plain is not None and _plain(broad) == plain) or (
                broad.first == rule.first and broad.rest == rule.rest
            )
            line = broad.span.line if broad.span else 0
            if broad.decision.rank > rule.decision.rank:
                report(
                    index,
                    "shadowed-rule",
                    f"this rule never decides: `{pattern_text(broad)}` "
                    f"({broad.decision.value}, line {line}) matches every command it matches, "
                    "and the stricter decision wins",
                    other,
                )
            elif broad.decision == rule.decision:
                if same_pattern:
                    if other_index < index:
                        report(
                            index,
                            "duplicate-rule",
                            f"duplicate of the rule on line {line}: "
                            f"`{pattern_text(rule)}` ({rule.decision.value})",
                            other,
                        )
                else:
                    report(
                        index,
                        "redundant-rule",
                        f"redundant: `{pattern_text(broad)}` (line {line}) already says "
                        f"{rule.decision.value} for every command this rule matches",
                        other,
                    )
    return findings
