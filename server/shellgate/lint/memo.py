"""The rule checks, remembered between versions of a document.

Whether a rule is a duplicate, shadowed, or escaped by another spelling depends only on the
rules with the same first token (plus, for an absolute-path rule, those of its bare name). So
the checks run per first-token group, and a group whose rules are the very same objects as in
the previous version (the chunked parser hands back unchanged chunks as they were) reuses its
findings: an edit re-checks only the groups it touched.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from shellgate.lint.evasion import evasion_findings
from shellgate.lint.finding import Finding
from shellgate.lint.hygiene import hygiene_findings
from shellgate.lint.model import RuleCall
from shellgate.lint.overlap import overlap_findings
from shellgate.lint.programs import program_findings
from shellgate.lint.runners import runner_findings
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule
from shellgate.rules.syntax import Call

Key = tuple[int, ...]


class CheckMemo:
    def __init__(self) -> None:
        self._memo: dict[Key, tuple[object, list[Finding]]] = {}

    def findings(
        self,
        rule_calls: Sequence[RuleCall],
        rules: Sequence[PrefixRule],
        host_executables: Mapping[str, Sequence[str]],
        lines: Sequence[str],
    ) -> list[Finding]:
        built: list[Policy] = []

        def policy() -> Policy:  # the file's own policy, built only if a group needs it
            if not built:
                built.append(Policy(rules, host_executables=host_executables))
            return built[0]

        groups: dict[str, list[RuleCall]] = {}
        for call, own in rule_calls:
            if len(own) == 1:  # the usual case
                groups.setdefault(own[0].first, []).append((call, own))
                continue
            by_first: dict[str, list[PrefixRule]] = {}
            for rule in own:
                by_first.setdefault(rule.first, []).append(rule)
            for first, same in by_first.items():
                groups.setdefault(first, []).append((call, tuple(same)))
        used: dict[Key, tuple[object, list[Finding]]] = {}

        def remembered(key: Key, keep: object, run: Callable[[], list[Finding]]) -> list[Finding]:
            hit = self._memo.get(key) or used.get(key)
            found = hit[1] if hit is not None else run()
            used[key] = (keep, found)
            return found

        def check(group: list[RuleCall], related: list[RuleCall]) -> list[Finding]:
            # The spellings tried for a group keep its first token or use its bare name: the
            # rules of those two groups decide them (no host_executable on this path).
            local = Policy([r for _, own in group + related for r in own])
            return _group(group, local, lines)

        out: list[Finding] = []
        resolving = bool(host_executables)
        for first, group in groups.items():
            ids = tuple(id(r) for _, members in group for r in members)
            related = groups.get(posixpath.basename(first), []) if "/" in first else []
            extra = tuple(id(r) for _, members in related for r in members)
            if resolving:  # host_executable changes what every path resolves to: no reuse
                out += _group(group, policy(), lines)
            else:
                out += remembered(
                    (0, *ids, -1, *extra), (group, related), partial(check, group, related)
                )
        for call, own in rule_calls:
            out += remembered(
                (1, id(call), *(id(r) for r in own)), (call, own), partial(_call, call, own)
            )
        self._memo = used
        return _unique(out)


def _group(group: list[RuleCall], policy: Policy, lines: Sequence[str]) -> list[Finding]:
    return overlap_findings(group, lines) + evasion_findings(group, policy, lines)


def _call(call: Call, rules: tuple[PrefixRule, ...]) -> list[Finding]:
    calls = [(call, rules)]
    return runner_findings(calls) + program_findings(calls) + hygiene_findings(calls)


def _unique(findings: list[Finding]) -> list[Finding]:
    """A call with several first tokens is in several groups: report each finding once."""
    seen: set[tuple[str, int, int, str]] = set()
    out = []
    for f in findings:
        key = (f.code, f.span.line, f.span.column, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
