"""What a person (or a reviewer) can answer to an approval question (Codex's ReviewDecision),
and whether it means yes. Its names on the wire are `shellgate.approval.wire`'s."""

from __future__ import annotations

from enum import Enum

from shellgate.approval import wire


class ReviewDecision(Enum):
    APPROVED = "approved"
    APPROVED_EXECPOLICY_AMENDMENT = "approved_execpolicy_amendment"
    APPROVED_FOR_SESSION = "approved_for_session"
    NETWORK_POLICY_AMENDMENT = "network_policy_amendment"
    DENIED = "denied"
    ABORT = "abort"
    TIMED_OUT = "timed_out"

    @property
    def wire(self) -> str:
        """Its name on the wire (`accept`, `cancel`, `timeout`, ...)."""
        return wire.NAMES[self.value]

    @classmethod
    def from_wire(cls, name: str) -> ReviewDecision | None:
        value = wire.DECISIONS.get(name)
        return None if value is None else cls(value)

    @property
    def approves(self) -> bool:
        return self.wire in wire.APPROVING
