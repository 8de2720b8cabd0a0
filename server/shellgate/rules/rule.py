"""What one rule says: a prefix pattern with a decision, or a network host with a decision."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shellgate.rules.decision import Decision
from shellgate.rules.source import SourceSpan

# One pattern position: its accepted alternatives (a plain token is a one-element tuple).
Alternatives = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PrefixRule:
    """`first` is the exact first token; `rest` the alternatives of each later position."""

    first: str
    rest: tuple[Alternatives, ...]
    decision: Decision
    justification: str | None = None
    span: SourceSpan | None = None
    layer: str | None = None
    # Accepted by Codex 0.169.0 with no visible effect; kept for its Debug text (spec A.9).
    canonical_matching: bool = False
    # The admin's `prompt-user` (requirements.toml): weighed as prompt, answered by a person
    # only (no Codex hook, no reviewer)
    person_only: bool = False

    def __len__(self) -> int:
        return 1 + len(self.rest)

    def matches_rest(self, cmd: Sequence[str]) -> bool:
        """Do the later tokens of `cmd` (its first already keyed this rule) fit the pattern?"""
        rest = self.rest
        if len(cmd) <= len(rest):
            return False
        return all(cmd[i] in alts for i, alts in enumerate(rest, 1))


@dataclass(frozen=True, slots=True)
class NetworkRule:
    """`protocol` is canonical: http, https, socks5_tcp or socks5_udp."""

    host: str
    protocol: str
    decision: Decision
    justification: str | None = None
    span: SourceSpan | None = None
