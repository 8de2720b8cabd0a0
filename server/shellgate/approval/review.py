"""What a person (or a reviewer) can answer to an approval question (Codex's ReviewDecision)."""

from __future__ import annotations

from enum import Enum


class ReviewDecision(Enum):
    APPROVED = "approved"
    APPROVED_EXECPOLICY_AMENDMENT = "approved_execpolicy_amendment"
    APPROVED_FOR_SESSION = "approved_for_session"
    NETWORK_POLICY_AMENDMENT = "network_policy_amendment"
    DENIED = "denied"
    ABORT = "abort"
    TIMED_OUT = "timed_out"

    @property
    def app_server_name(self) -> str:
        """The name Codex's app-server protocol offers it under (`accept`, `cancel`, ...)."""
        return _APP_SERVER[self]

    @property
    def approves(self) -> bool:
        return self in _APPROVING


_APP_SERVER = {
    ReviewDecision.APPROVED: "accept",
    ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT: "acceptWithExecpolicyAmendment",
    ReviewDecision.APPROVED_FOR_SESSION: "acceptForSession",
    ReviewDecision.NETWORK_POLICY_AMENDMENT: "applyNetworkPolicyAmendment",
    ReviewDecision.DENIED: "decline",
    ReviewDecision.ABORT: "cancel",
    ReviewDecision.TIMED_OUT: "timedOut",
}

_APPROVING = frozenset(
    {
        ReviewDecision.APPROVED,
        ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT,
        ReviewDecision.APPROVED_FOR_SESSION,
        ReviewDecision.NETWORK_POLICY_AMENDMENT,
    }
)
