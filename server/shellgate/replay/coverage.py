"""Rule coverage for the editor: which past commands each rule matches, recomputed fast on
every change of the rules, and which past decisions an edit changes.

A command's segments (what Codex's rules see of it) do not depend on the rules, so they are
computed once, when the history is read. After an edit only the rule lookups run again; the
whole chain runs only for the commands whose matching rules changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shellgate.approval.context import ExecContext
from shellgate.approval.requirement import commands_for_exec_policy
from shellgate.replay.engine import Outcome, RuleKey, context_for, decide
from shellgate.replay.model import HistoryCommand
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule
from shellgate.shell.split import parse_shell_lc_plain_commands

EXAMPLES = 20

Command = str | tuple[str, ...]


@dataclass
class Past:
    """One distinct past command and what the rules see of it."""

    command: Command
    sandbox_permissions: str | None
    segments: tuple[tuple[str, ...], ...]
    count: int = 0
    last: float | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class RuleCoverage:
    hits: int  # past commands matched (repeats included)
    last: float | None
    commands: tuple[str, ...]  # the most frequent first, at most EXAMPLES


@dataclass(frozen=True, slots=True)
class DecisionChange:
    command: str
    count: int
    before: Outcome
    after: Outcome


def segments_of(command: Command) -> tuple[tuple[str, ...], ...]:
    """The commands Codex's rules see, split as `explain` splits them."""

    argv = ["bash", "-lc", command] if isinstance(command, str) else list(command)
    plain = parse_shell_lc_plain_commands(argv)
    found = [list(c) for c in plain] if plain else commands_for_exec_policy(argv)
    return tuple(tuple(c) for c in found)


class CoverageIndex:
    def __init__(self, commands: Iterable[HistoryCommand]) -> None:
        self.past: dict[tuple[Command, str | None], Past] = {}
        self.total = 0
        for cmd in commands:
            key = (cmd.command, cmd.sandbox_permissions)
            past = self.past.get(key)
            if past is None:
                segs = segments_of(cmd.command)
                if not segs:
                    continue
                past = self.past[key] = Past(cmd.command, cmd.sandbox_permissions, segs,
                                             text=cmd.text)  # fmt: skip
            past.count += 1
            self.total += 1
            if cmd.time is not None and (past.last is None or cmd.time > past.last):
                past.last = cmd.time

    def coverage(self, policy: Policy) -> dict[RuleKey, RuleCoverage]:
        hits: dict[RuleKey, list[Past]] = {}
        for past in self.past.values():
            seen: set[RuleKey] = set()
            for seg in past.segments:
                for match in policy.matches_for(seg, resolve_host_executables=True):
                    span = match.rule.span
                    if span is None:
                        continue
                    key = (span.path, span.line, span.column)
                    if key not in seen:
                        seen.add(key)
                        hits.setdefault(key, []).append(past)
        out = {}
        for key, pasts in hits.items():
            pasts.sort(key=lambda p: -p.count)
            times = [p.last for p in pasts if p.last is not None]
            out[key] = RuleCoverage(sum(p.count for p in pasts), max(times) if times else None,
                                    tuple(p.text for p in pasts[:EXAMPLES]))  # fmt: skip
        return out

    def changes(
        self, before: Policy, after: Policy, context: ExecContext
    ) -> list[DecisionChange]:
        """Past commands whose outcome differs between two policies (the chain runs only for
        those whose matching rules differ)."""
        out = []
        for past in self.past.values():
            if all(_matched(before, s) == _matched(after, s) for s in past.segments):
                continue
            ctx = context_for(context, past.sandbox_permissions)
            old = decide(past.command, before, ctx).outcome
            new = decide(past.command, after, ctx).outcome
            if old is not new:
                out.append(DecisionChange(past.text, past.count, old, new))
        out.sort(key=lambda c: (-c.count, c.command))
        return out


def _matched(policy: Policy, segment: Sequence[str]) -> frozenset[tuple[object, ...]]:
    # What decides: the rules' patterns and decisions, not where they are written (an edit
    # above a rule moves it without changing any decision).
    return frozenset(_identity(m.rule) for m in policy.matches_for(segment,
                                                                   resolve_host_executables=True))


def _identity(rule: PrefixRule) -> tuple[object, ...]:
    return (rule.first, rule.rest, rule.decision)


def summary(changes: Sequence[DecisionChange]) -> str:
    """"this edit changes 7 past decisions: 5 ask → allow, 2 allow → forbidden"."""
    groups: dict[tuple[Outcome, Outcome], int] = {}
    for c in changes:
        groups[(c.before, c.after)] = groups.get((c.before, c.after), 0) + c.count
    total = sum(groups.values())
    parts = ", ".join(f"{n} {a.label} → {b.label}"
                      for (a, b), n in sorted(groups.items(), key=lambda kv: -kv[1]))  # fmt: skip
    noun = "decision" if total == 1 else "decisions"
    return f"this edit changes {total} past {noun}: {parts}"
