"""Every history command through the whole chain, by the engine `shellgate explain` uses.

Identical commands (with the same escalation request) are decided once: a history repeats
itself, and the chain is a pure function of the command, the rules and the context.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import Enum

from shellgate.approval.context import ExecContext, SandboxPermissions
from shellgate.approval.requirement import Forbidden, NeedsApproval
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
    from shellgate.explain import explain

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
class Replay:
    entries: dict[Key, Entry]
    commands: int  # every command read, repeats included


def replay(
    commands: Iterable[HistoryCommand],
    policy: Policy,
    context: ExecContext,
    *,
    progress: Callable[[int], None] | None = None,
) -> Replay:
    entries: dict[Key, Entry] = {}
    total = 0
    for cmd in commands:
        total += 1
        key: Key = (cmd.command, cmd.sandbox_permissions)
        entry = entries.get(key)
        if entry is None:
            try:
                decided = decide(cmd.command, policy, context_for(context, key[1]), cwd=cmd.cwd)
            except ValueError:  # an empty argv: nothing Codex would run
                total -= 1
                continue
            entry = entries[key] = Entry(key, decided)
        entry.count += 1
        entry.sources[cmd.source] += 1
        if entry.last is None or (cmd.time or 0) >= (entry.last.time or 0):
            entry.last = cmd
        if progress is not None and total % 1000 == 0:
            progress(total)
    return Replay(entries, total)


def redecide(entries: Iterable[Entry], policy: Policy, context: ExecContext) -> dict[Key, Decided]:
    """The same distinct commands decided under another policy (for --against, suggestions)."""
    return {
        e.key: decide(e.key[0], policy, context_for(context, e.key[1]),
                      cwd=None if e.last is None else e.last.cwd)
        for e in entries
    }
