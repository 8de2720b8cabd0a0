"""What an answer writes: the one writer of amendments, for every front end.

"Yes, and don't ask again" appends Codex's amendment (`prefix_rule(..., decision="allow")`) or
the rule the person picked on the "don't ask again" ladder (a `Rung`, with its examples) to
`$CODEX_HOME/rules/default.rules`; a network answer appends `network_rule`s. Every write goes
through `shellgate.rules.amend` (appended only, under the amendment lock), and says what it
wrote or why it could not (`Written`): the caller reports it, and never treats a failed write
as a refusal: the person said yes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from shellgate.rules.amend import (
    append_allow_prefix_rule,
    append_network_rule,
    append_rule_lines,
    network_rule_line,
    prefix_rule_line,
    prefix_rule_line_with_examples,
)
from shellgate.rules.errors import RulesError


@dataclass(frozen=True, slots=True)
class AdmittedVariant:
    """A dangerous command an allow rule would also let run."""

    argv: tuple[str, ...]
    what: str  # why it matters


@dataclass(frozen=True, slots=True)
class Rung:
    """A "don't ask again" candidate (`shellgate.replay.ladder` computes them)."""

    kind: str  # "codex" (Codex's proposal), "family", "program"
    pattern: tuple[str, ...]
    allowed: int  # past commands (repeats included) it would have let run unasked
    asked_before: int  # of those, how many asked under the rules as they are
    admits: tuple[AdmittedVariant, ...]
    match: tuple[str, ...]  # taken from the real command
    not_match: tuple[tuple[str, ...], ...]  # dangerous variants it excludes
    target: str  # the rules file it would be appended to

    @property
    def line(self) -> str:
        return prefix_rule_line_with_examples(self.pattern, [self.match], self.not_match)

    @property
    def label(self) -> str:
        return {"codex": "this command (Codex's proposal)", "family": "the subcommand family",
                "program": "the whole program"}[self.kind]  # fmt: skip


class Written(NamedTuple):
    line: str | None  # the rule line now in the file (also when it was there already)
    failure: str | None = None  # why nothing was written
    added: bool = False  # False: the identical line was there already, or the write failed

    @property
    def ok(self) -> bool:
        return self.failure is None


def rules_file(codex_home: str | os.PathLike[str]) -> str:
    """Where Codex appends its amendments."""
    return os.path.join(codex_home, "rules", "default.rules")


def _failed(path: str | os.PathLike[str], exc: Exception) -> Written:
    return Written(None, f"approved, but the rule could not be written to {path}: {exc}")


def allow_prefix(path: str | os.PathLike[str], tokens: Sequence[str]) -> Written:
    """Codex's own amendment: allow commands that start with `tokens`."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        added = append_allow_prefix_rule(path, tokens)
    except (RulesError, OSError) as exc:
        return _failed(path, exc)
    return Written(prefix_rule_line(tokens), None, added)


def allow_rung(rung: Rung) -> Written:
    """The ladder's pick, with its examples. Checked by ShellGate's own loader first (examples
    included): a rule Codex would reject is never written."""
    # Here, not above: the Starlark loader costs tens of ms to import, and only a pick needs it.
    from shellgate.rules.loader import parse_text

    line = rung.line
    parsed = parse_text(line + "\n", rung.target, {})
    if parsed.error is not None:
        return Written(None, f"refusing to write {line}: {parsed.error}")
    try:
        os.makedirs(os.path.dirname(rung.target), exist_ok=True)
        added = bool(append_rule_lines(rung.target, [line]))
    except (RulesError, OSError) as exc:
        return _failed(rung.target, exc)
    return Written(line, None, added)


def network(path: str | os.PathLike[str], host: str, action: str) -> Written:
    """Allow or deny `host` from now on ("allow" / "deny"), over http and https."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        added = [append_network_rule(Path(path), host, p, action) for p in ("http", "https")]
    except (RulesError, OSError) as exc:
        return _failed(path, exc)
    return Written(network_rule_line(host, "https", action), None, any(added))
