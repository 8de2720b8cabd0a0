"""A loaded policy: prefix rules indexed by first token, host executables, network rules.

Codex's `Policy` (execpolicy/src/policy.rs): exact first-token rules first; only when nothing
matched and resolution is on, the basename rules gated by `host_executable`; then the injected
fallback. The strictest decision wins; matches are reported in load order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from shellgate.rules.decision import Decision
from shellgate.rules.paths import absolute_program_path, normalize_path
from shellgate.rules.rule import NetworkRule, PrefixRule

Fallback = Callable[[Sequence[str]], Decision]

__all__ = [
    "Evaluation",
    "Fallback",
    "HeuristicsRuleMatch",
    "Policy",
    "PrefixRuleMatch",
    "RuleMatch",
    "absolute_program_path",
    "normalize_path",
]


# Results are immutable named tuples rather than frozen dataclasses: they are built on every
# check, and a tuple is built several times faster (the 5 us budget per check).


class PrefixRuleMatch(NamedTuple):
    matched_prefix: tuple[str, ...]
    decision: Decision
    justification: str | None
    resolved_program: str | None
    rule: PrefixRule


class HeuristicsRuleMatch(NamedTuple):
    """No rule matched; `decision` is what the injected fallback said."""

    command: tuple[str, ...]
    decision: Decision


RuleMatch = PrefixRuleMatch | HeuristicsRuleMatch


class Evaluation(NamedTuple):
    matched_rules: tuple[RuleMatch, ...]
    decision: Decision | None

    def is_match(self) -> bool:
        return any(isinstance(m, PrefixRuleMatch) for m in self.matched_rules)


class Policy:
    """Mutable only through `add_prefix_rule` / `set_host_executable` (amendments, loading)."""

    __slots__ = ("_by_first", "_by_second", "_host_executables", "network_rules", "rules")

    def __init__(
        self,
        rules: Iterable[PrefixRule] = (),
        network_rules: Iterable[NetworkRule] = (),
        host_executables: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.rules: list[PrefixRule] = []
        self.network_rules: list[NetworkRule] = list(network_rules)
        self._by_first: dict[str, list[PrefixRule]] = {}
        # Large buckets' second-token indexes (_second_index), built on first use; adding a
        # rule to a bucket drops its index.
        self._by_second: dict[str, _SecondIndex] = {}
        self._host_executables: dict[str, tuple[str, ...]] = {}
        for rule in rules:
            self.add_rule(rule)
        for name, paths in (host_executables or {}).items():
            self.set_host_executable(name, paths)

    @property
    def host_executables(self) -> Mapping[str, tuple[str, ...]]:
        return self._host_executables

    def add_rule(self, rule: PrefixRule) -> None:
        self.rules.append(rule)
        self._by_second.pop(rule.first, None)
        bucket = self._by_first.get(rule.first)
        if bucket is None:
            self._by_first[rule.first] = [rule]
        else:
            bucket.append(rule)

    def add_prefix_rule(self, tokens: Sequence[str], decision: Decision) -> PrefixRule:
        """Codex's `Policy::add_prefix_rule`: plain tokens, no alternatives, no justification."""
        if not tokens:
            raise ValueError("prefix rule requires at least one token")
        rule = PrefixRule(tokens[0], tuple((t,) for t in tokens[1:]), decision)
        self.add_rule(rule)
        return rule

    def set_host_executable(self, name: str, paths: Sequence[str]) -> None:
        """A later definition replaces an earlier one; `[]` turns basename fallback off."""
        self._host_executables[name] = tuple(paths)

    def merge(self, other: Policy) -> Policy:
        """A new policy: this one's rules, then `other`'s; `other`'s host lists win."""
        merged = Policy(self.rules, self.network_rules, self._host_executables)
        for rule in other.rules:
            merged.add_rule(rule)
        merged.network_rules.extend(other.network_rules)
        for name, paths in other._host_executables.items():
            merged.set_host_executable(name, paths)
        return merged

    def matches_for(
        self, cmd: Sequence[str], *, resolve_host_executables: bool = False
    ) -> list[PrefixRuleMatch]:
        """Every prefix-rule match for `cmd`, in load order (no fallback)."""
        if not cmd:
            return []
        first = cmd[0]
        bucket = self._by_first.get(first)
        found = (
            _bucket_matches(self._candidates(first, bucket, cmd), cmd, None, None) if bucket else []
        )
        if found or not resolve_host_executables:
            return found
        if "/" not in first and first not in _RESOLVES_ELSEWHERE:
            # A bare name resolves to `<cwd>/name`, whose basename keys the bucket that just
            # matched nothing: no need to ask the process for its cwd.
            return found
        return self._host_matches(cmd)

    def rules_for(self, first: str) -> Sequence[PrefixRule]:
        """The rules whose pattern starts with `first`, in load order."""
        return self._by_first.get(first, ())

    def _host_matches(self, cmd: Sequence[str]) -> list[PrefixRuleMatch]:
        program = absolute_program_path(cmd[0])
        if program is None:
            return []
        basename = program.rsplit("/", 1)[-1]
        bucket = self._by_first.get(basename) if basename else None
        if not bucket:
            return []
        allowed = self._host_executables.get(basename)
        if allowed is not None and program not in allowed:
            return []
        return _bucket_matches(self._candidates(basename, bucket, cmd), cmd, basename, program)

    def _candidates(
        self, first: str, bucket: list[PrefixRule], cmd: Sequence[str]
    ) -> Sequence[PrefixRule]:
        """The rules of `first`'s bucket that can match `cmd`, in load order: all of a small
        bucket; of a large one, those whose second position admits cmd[1] and those with
        none (a program with thousands of rules is scanned in a few, not all)."""
        if len(bucket) < _INDEX_FROM:
            return bucket
        index = self._by_second.get(first)
        if index is None:
            index = self._by_second[first] = _second_index(bucket)
        loose, by_token = index
        picked = by_token.get(cmd[1], []) if len(cmd) > 1 else []
        if loose:
            picked = sorted(loose + picked)
        return [bucket[i] for i in picked]

    def check(
        self,
        cmd: Sequence[str],
        fallback: Fallback | None = None,
        *,
        resolve_host_executables: bool = False,
    ) -> Evaluation:
        found = self.matches_for(cmd, resolve_host_executables=resolve_host_executables)
        if found:
            return Evaluation(tuple(found), _strictest(found))
        if fallback is None:
            return Evaluation((), None)
        decision = fallback(cmd)
        return Evaluation((HeuristicsRuleMatch(tuple(cmd), decision),), decision)

    def check_multiple(
        self,
        cmds: Iterable[Sequence[str]],
        fallback: Fallback | None = None,
        *,
        resolve_host_executables: bool = False,
    ) -> Evaluation:
        matched: list[RuleMatch] = []
        for cmd in cmds:
            found = self.matches_for(cmd, resolve_host_executables=resolve_host_executables)
            if found:
                matched.extend(found)
            elif fallback is not None:
                matched.append(HeuristicsRuleMatch(tuple(cmd), fallback(cmd)))
        return Evaluation(tuple(matched), _strictest(matched) if matched else None)


_RANK = {"allow": 0, "prompt": 1, "forbidden": 2}  # by value: see rules.decision
_INDEX_FROM = 16  # buckets this large get a second-token index
# (positions of the rules with no second position, {token: positions of the rules admitting it})
_SecondIndex = tuple[list[int], dict[str, list[int]]]


def _second_index(bucket: Sequence[PrefixRule]) -> _SecondIndex:
    loose: list[int] = []
    by_token: dict[str, list[int]] = {}
    for i, rule in enumerate(bucket):
        if not rule.rest:
            loose.append(i)
            continue
        for token in dict.fromkeys(rule.rest[0]):  # an alternative listed twice counts once
            by_token.setdefault(token, []).append(i)
    return loose, by_token


# Bare first words whose absolute path does not end in themselves (`.` is the cwd, `~` $HOME).
_RESOLVES_ELSEWHERE = frozenset({"", ".", "..", "~"})


def _strictest(matches: Sequence[RuleMatch]) -> Decision:
    best = matches[0].decision
    for m in matches[1:]:
        if _RANK[m.decision._value_] > _RANK[best._value_]:
            best = m.decision
    return best


def _bucket_matches(
    bucket: Sequence[PrefixRule], cmd: Sequence[str], first: str | None, resolved: str | None
) -> list[PrefixRuleMatch]:
    """The rules of one bucket that `cmd` matches; `first` replaces cmd[0] in the prefix
    (the basename, when reached through a host executable)."""
    n = len(cmd)
    found: list[PrefixRuleMatch] = []
    for rule in bucket:
        rest = rule.rest
        k = len(rest)
        if k >= n:
            continue
        if k == 1:
            if cmd[1] not in rest[0]:
                continue
        elif k and not all(cmd[i] in alts for i, alts in enumerate(rest, 1)):
            continue
        prefix = tuple(cmd[: k + 1]) if first is None else (first, *cmd[1 : k + 1])
        found.append(PrefixRuleMatch(prefix, rule.decision, rule.justification, resolved, rule))
    return found
