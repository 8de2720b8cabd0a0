"""The "don't ask again" ladder: candidate allow rules for an approved command, narrow to broad.

Codex's own proposal (its amendment, unchanged) comes first and stays the default; then the
subcommand family (`git push`) and the program (`git`) where they make sense. Each rung says
how many past commands it would have allowed and how many of those asked before, the
dangerous commands it would also admit, and where it would be written. The rule written
carries a `match` example taken from the real command and `not_match` examples for the
dangerous variants it excludes, so Codex itself checks the rule when it loads the file.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

from shellgate.approval.amendments import Rung
from shellgate.approval.context import ExecContext
from shellgate.replay.coverage import CoverageIndex, segments_of
from shellgate.replay.engine import Outcome, context_for, decide
from shellgate.replay.model import ReadStats
from shellgate.replay.sources import default_sources, read_sources
from shellgate.replay.variants import DESTRUCTIVE, admitted
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule

# Programs an allow for which would admit any code at all: never offered program-wide.
NOT_PROGRAM_WIDE = frozenset({
    "bash", "sh", "zsh", "dash", "fish", "python", "python3", "node", "ruby", "perl", "php",
    "sudo", "doas", "env", "xargs", "nohup", "timeout", "nice", "exec", "eval", "npx", "uvx",
    "ssh", "docker", "kubectl", "rm", "dd", "find", "chmod", "chown", "curl", "wget",
})  # fmt: skip
MAX_NOT_MATCH = 3
MAX_CANDIDATES = 5000  # past commands re-decided per rung, at most



def _word(token: str) -> bool:
    return bool(token) and token[0].isalpha() and all(c.isalnum() or c in "-_:" for c in token)


def patterns(amendment: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(kind, pattern) from narrow to broad: Codex's amendment, its family, its program."""
    first = tuple(amendment)
    out = [("codex", first)]
    if len(first) > 2 and _word(first[1]):
        out.append(("family", first[:2]))
    program = os.path.basename(first[0])
    if len(first) > 1 and program not in NOT_PROGRAM_WIDE and _word(program):
        out.append(("program", first[:1]))
    return out


def _matches(pattern: Sequence[str], argv: Sequence[str]) -> bool:
    return len(argv) >= len(pattern) and tuple(argv[: len(pattern)]) == tuple(pattern)


def _not_match(pattern: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Destructive forms of the same program that this pattern does not match."""
    program = pattern[0]
    out = [v for v in DESTRUCTIVE if v[0] == program and not _matches(pattern, v)]
    # The closest first: those sharing the longest prefix with the pattern.
    out.sort(key=lambda v: -next((i for i, (a, b) in enumerate(zip(v, pattern, strict=False))
                                  if a != b), min(len(v), len(pattern))))  # fmt: skip
    return tuple(out[:MAX_NOT_MATCH])


def _example(pattern: Sequence[str], segments: Sequence[Sequence[str]]) -> tuple[str, ...]:
    for seg in segments:
        if _matches(pattern, seg):
            return tuple(seg)
    return tuple(pattern)


def ladder(
    command: str | Sequence[str],
    amendment: Sequence[str] | None,
    policy: Policy,
    context: ExecContext,
    *,
    target: str,
    history: CoverageIndex | None = None,
) -> tuple[Rung, ...]:
    """The rungs for a command Codex proposes `amendment` for (none: Codex offers no "don't
    ask again", and neither does the ladder)."""
    if not amendment:
        return ()

    cmd = command if isinstance(command, str) else tuple(command)
    segments = segments_of(cmd)
    rungs = []
    for kind, pattern in patterns(amendment):
        allowed, asked = _counts(pattern, policy, context, history)
        rungs.append(Rung(kind, pattern, allowed, asked, admitted(pattern, policy),
                          _example(pattern, segments), _not_match(pattern), target))  # fmt: skip
    return tuple(rungs)


def _counts(
    pattern: tuple[str, ...], policy: Policy, context: ExecContext, history: CoverageIndex | None
) -> tuple[int, int]:
    if history is None:
        return 0, 0
    trial = Policy(policy.rules, policy.network_rules, policy.host_executables)
    trial.add_rule(PrefixRule(pattern[0], tuple((t,) for t in pattern[1:]), Decision.ALLOW))
    allowed = asked = 0
    candidates = [p for p in history.past.values()
                  if any(_matches(pattern, s) for s in p.segments)]  # fmt: skip
    for past in candidates[:MAX_CANDIDATES]:
        ctx = context_for(context, past.sandbox_permissions)
        if decide(past.command, trial, ctx).outcome is not Outcome.ALLOW:
            continue
        allowed += past.count
        if decide(past.command, policy, ctx).outcome is Outcome.PROMPT:
            asked += past.count
    return allowed, asked


def describe(rung: Rung) -> str:
    """One line for a person: what it allows, its past, what else it lets through, where."""
    noun = "command" if rung.allowed == 1 else "commands"
    text = (f"{' '.join(rung.pattern)} … ({rung.label}): would have allowed {rung.allowed} past "
            f"{noun}, {rung.asked_before} of which asked")  # fmt: skip
    if rung.admits:
        text += "; also admits " + ", ".join(f"`{' '.join(v.argv)}`" for v in rung.admits)
    return text + f"; written to {rung.target}"


def to_json(rung: Rung) -> dict[str, object]:
    """A rung in `shellgate/approve` params (approval.schema.json#/definitions/rung)."""
    return {
        "kind": rung.kind, "label": rung.label, "pattern": list(rung.pattern), "rule": rung.line,
        "allowed": rung.allowed, "askedBefore": rung.asked_before,
        "admits": [list(v.argv) for v in rung.admits], "path": rung.target,
        "description": describe(rung),
    }  # fmt: skip


@functools.cache
def history_index() -> CoverageIndex:
    """The user's histories from the default places, read once per process (for `shellgate
    run` and `agent`); `SHELLGATE_REPLAY=0` reads none (the counts are then zero)."""

    if os.environ.get("SHELLGATE_REPLAY") == "0":
        return CoverageIndex(())
    return CoverageIndex(read_sources(default_sources(), ReadStats()))
