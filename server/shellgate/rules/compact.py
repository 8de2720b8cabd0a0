"""A policy as plain tuples (fast to marshal) and its evaluation: the `check` command's cache
format and warm path. It imports nothing heavy (no dataclasses, enum or json), because Python's
start-up is most of a warm `shellgate check`. `Policy.check` is the reference; the tests hold
the two to the same answers.
"""

from __future__ import annotations

from shellgate.rules.paths import absolute_program_path

TYPE_CHECKING = False  # mypy treats this name as true; at run time nothing below is imported
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from shellgate.rules.policy import Policy

# rest (alternatives per later position), decision value, justification, canonical_matching
Entry = tuple[tuple[tuple[str, ...], ...], str, "str | None", bool]
Buckets = dict[str, list[Entry]]
# matched prefix, decision value, resolved program, justification
Match = tuple[tuple[str, ...], str, "str | None", "str | None"]

_RANK = {"allow": 0, "prompt": 1, "forbidden": 2}


def to_compact(policy: Policy) -> tuple[Buckets, dict[str, tuple[str, ...]]]:
    buckets: Buckets = {}
    for r in policy.rules:
        entry: Entry = (r.rest, r.decision.value, r.justification, r.canonical_matching)
        buckets.setdefault(r.first, []).append(entry)
    return buckets, dict(policy.host_executables)


def _bucket_matches(
    entries: Sequence[Entry], cmd: Sequence[str], first: str, resolved: str | None
) -> list[Match]:
    found: list[Match] = []
    n = len(cmd)
    for rest, decision, justification, _ in entries:
        k = len(rest)
        if n > k and all(cmd[i] in alts for i, alts in enumerate(rest, 1)):
            found.append(((first, *cmd[1 : k + 1]), decision, resolved, justification))
    return found


def evaluate(
    cmd: Sequence[str],
    buckets: Mapping[str, Sequence[Entry]],
    hosts: Mapping[str, Sequence[str]],
    *,
    resolve_host_executables: bool = False,
) -> tuple[list[Match], str | None]:
    """Matches in load order and the strictest decision (None when nothing matched)."""
    if not cmd:
        return [], None
    found = _bucket_matches(buckets.get(cmd[0], ()), cmd, cmd[0], None)
    if not found and resolve_host_executables:
        program = absolute_program_path(cmd[0])
        basename = program.rsplit("/", 1)[-1] if program else ""
        allowed = hosts.get(basename)
        if basename and (allowed is None or program in allowed):
            found = _bucket_matches(buckets.get(basename, ()), cmd, basename, program)
    decision = max((m[1] for m in found), key=_RANK.__getitem__, default=None)
    return found, decision
