"""Every history command through the whole chain, by the engine `shellgate explain` uses.

Identical commands (with the same escalation request) are decided once: a history repeats
itself, and the chain is a pure function of the command, the rules and the context.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from shellgate.approval.context import ExecContext, SandboxPermissions
from shellgate.approval.requirement import Forbidden, NeedsApproval
from shellgate.explain import explain
from shellgate.explain.model import Explanation
from shellgate.replay.model import HistoryCommand
from shellgate.rules.policy import Policy


class Outcome(Enum):
    """What happens to the command: run unasked, ask the user, or refuse."""

    ALLOW = "allow"
    PROMPT = "prompt"
    FORBIDDEN = "forbidden"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @property
    def label(self) -> str:
        return _LABEL[self]


_RANK = {Outcome.ALLOW: 0, Outcome.PROMPT: 1, Outcome.FORBIDDEN: 2}
_LABEL = {Outcome.ALLOW: "allow", Outcome.PROMPT: "ask", Outcome.FORBIDDEN: "forbidden"}

RuleKey = tuple[str, int, int]  # (path, line, column) of a rule's definition


@dataclass(frozen=True, slots=True)
class Decided:
    outcome: Outcome
    rules: tuple[RuleKey, ...]  # every rule that matched a segment, in order, once each
    deciding: tuple[RuleKey, ...]  # those as strict as the decision: the rules responsible
    explanation: Explanation


Key = tuple[str | tuple[str, ...], str | None]  # (command, sandbox_permissions)


@dataclass
class Entry:
    """One distinct command of the history, its decision, and how often it was run."""

    key: Key
    decided: Decided
    count: int = 0
    last: HistoryCommand | None = None  # the latest occurrence (by time when recorded)
    sources: Counter[str] = field(default_factory=Counter)  # occurrences per format

    @property
    def last_time(self) -> float | None:
        return None if self.last is None else self.last.time


def outcome_of(explanation: Explanation) -> Outcome:
    requirement = explanation.requirement
    if isinstance(requirement, Forbidden):
        return Outcome.FORBIDDEN
    if isinstance(requirement, NeedsApproval):
        return Outcome.PROMPT
    return Outcome.ALLOW


def context_for(base: ExecContext, sandbox_permissions: str | None) -> ExecContext:
    """The run's context, with the escalation the agent asked for when it recorded one."""
    if sandbox_permissions is None:
        return base
    try:
        perms = SandboxPermissions(sandbox_permissions)
    except ValueError:
        return base
    return replace(base, sandbox_permissions=perms)


def decide(
    command: str | tuple[str, ...],
    policy: Policy,
    context: ExecContext,
    *,
    cwd: str | None = None,
) -> Decided:

    explanation = explain(command if isinstance(command, str) else list(command),
                          policy=policy, context=context, cwd=cwd, warnings=False)  # fmt: skip
    outcome = outcome_of(explanation)
    rules: dict[RuleKey, None] = {}
    deciding: dict[RuleKey, None] = {}
    for segment in explanation.segments:
        for hit in segment.rules:
            if hit.path is None or hit.line is None:
                continue
            key = (hit.path, hit.line, hit.column or 1)
            rules[key] = None
            if explanation.decision is not None and hit.decision is explanation.decision:
                deciding[key] = None
    return Decided(outcome, tuple(rules), tuple(deciding), explanation)


@dataclass
class _Tally:
    last: HistoryCommand
    count: int = 0
    sources: Counter[str] = field(default_factory=Counter)


@dataclass
class Replay:
    entries: dict[Key, Entry]
    commands: int  # every command read, repeats included


def replay(
    commands: Iterable[HistoryCommand],
    policy: Policy,
    context: ExecContext,
    *,
    progress: Callable[[int], None] | None = None,
    jobs: int | None = None,
) -> Replay:
    """Read everything first (the distinct commands and their tallies), then decide each
    distinct command once, on `jobs` processes (default: every CPU, for many commands)."""
    tallies: dict[Key, _Tally] = {}
    total = 0
    for cmd in commands:
        total += 1
        key: Key = (cmd.command, cmd.sandbox_permissions)
        tally = tallies.get(key)
        if tally is None:
            tally = tallies[key] = _Tally(cmd)
        tally.count += 1
        tally.sources[cmd.source] += 1
        if (cmd.time or 0) >= (tally.last.time or 0):
            tally.last = cmd
        if progress is not None and total % 1000 == 0:
            progress(total)
    work = [(key, t.last.cwd) for key, t in tallies.items()]
    decided = decide_all(work, policy, context, jobs=jobs)
    entries: dict[Key, Entry] = {}
    for key, t in tallies.items():
        got = decided.get(key)
        if got is None:  # an empty argv: nothing Codex would run
            total -= t.count
            continue
        entries[key] = Entry(key, got, t.count, t.last, t.sources)
    return Replay(entries, total)


# Below this many distinct commands, starting worker processes costs more than it saves.
PARALLEL_MIN = 2000
_WORK: tuple[Policy, ExecContext] | None = None  # for forked workers: inherited, not pickled


def decide_all(
    work: Sequence[tuple[Key, str | None]], policy: Policy, context: ExecContext, *,
    jobs: int | None = None,
) -> dict[Key, Decided]:
    """Each (command key, cwd) decided; on forked workers when there are many."""
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs > 1 and len(work) >= PARALLEL_MIN and "fork" in mp.get_all_start_methods():
        global _WORK
        _WORK = (policy, context)
        try:
            size = max(50, len(work) // (jobs * 8))
            chunks = [work[i : i + size] for i in range(0, len(work), size)]
            with mp.get_context("fork").Pool(jobs) as pool:
                out: dict[Key, Decided] = {}
                for part in pool.imap_unordered(_decide_chunk, chunks):
                    out.update(part)
                return out
        finally:
            _WORK = None
    return _decide_many(work, policy, context)


def _decide_chunk(work: Sequence[tuple[Key, str | None]]) -> dict[Key, Decided]:
    assert _WORK is not None
    return _decide_many(work, *_WORK)


def _decide_many(
    work: Iterable[tuple[Key, str | None]], policy: Policy, context: ExecContext
) -> dict[Key, Decided]:
    out = {}
    for key, cwd in work:
        try:
            out[key] = decide(key[0], policy, context_for(context, key[1]), cwd=cwd)
        except ValueError:  # an empty argv
            continue
    return out


def redecide(entries: Sequence[Entry], policy: Policy, context: ExecContext) -> dict[Key, Decided]:
    """The same distinct commands decided under another policy (for --against)."""
    work = [(e.key, None if e.last is None else e.last.cwd) for e in entries]
    return decide_all(work, policy, context)
