"""A policy as plain tuples (fast to marshal), and back: the `check` command's cache format.

Only the buckets a command can reach are turned back into `PrefixRule`s, so a cached
100 000-rule policy costs a dictionary lookup, not 100 000 objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy, absolute_program_path
from shellgate.rules.rule import PrefixRule

# first token -> [(rest, decision value, justification, canonical_matching)], load order kept
Buckets = dict[str, list[tuple[tuple[tuple[str, ...], ...], str, str | None, bool]]]


def to_compact(policy: Policy) -> tuple[Buckets, dict[str, tuple[str, ...]]]:
    buckets: Buckets = {}
    for r in policy.rules:
        entry = (r.rest, r.decision.value, r.justification, r.canonical_matching)
        buckets.setdefault(r.first, []).append(entry)
    return buckets, dict(policy.host_executables)


def policy_for(
    cmd: Sequence[str],
    buckets: Mapping[str, Sequence[tuple[tuple[tuple[str, ...], ...], str, str | None, bool]]],
    hosts: Mapping[str, Sequence[str]],
    *,
    resolve_host_executables: bool,
) -> Policy:
    """The part of a compact policy that `cmd` can reach (its exact and basename buckets)."""
    firsts = [cmd[0]] if cmd else []
    if cmd and resolve_host_executables:
        program = absolute_program_path(cmd[0])
        if program is not None:
            firsts.append(program.rsplit("/", 1)[-1])
    rules: list[PrefixRule] = []
    for first in dict.fromkeys(firsts):
        for rest, decision, justification, canonical in buckets.get(first, ()):
            rules.append(
                PrefixRule(first, rest, Decision(decision), justification, None, None, canonical)
            )
    return Policy(rules, host_executables=hosts)
