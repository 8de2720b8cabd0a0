"""The decision for a command no rule matched (Codex's `render_decision_for_unmatched_command`).

Follows Codex 0.169.0's runtime and the seed documents (spec C.0, C.3): no known-safe shortcut;
"dangerous" is the full D2 classifier of shell.dangerous (ForcedRm / Other).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from shellgate.approval.context import (
    ApprovalPolicy,
    ApprovalPolicyKind,
    ExecContext,
    FsSandboxKind,
    SandboxPermissions,
)
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Fallback


class Why(Enum):
    """Which branch of the fallback decided (for explanations)."""

    DANGEROUS_NEVER = "dangerous_never"  # dangerous, and `never` cannot ask: refused
    DANGEROUS_ASK = "dangerous_ask"  # dangerous: asked rather than run unseen
    NEVER_RELIES_ON_SANDBOX = "never_relies_on_sandbox"
    UNTRUSTED_ASKS = "untrusted_asks"
    OVERRIDE_ASKS = "override_asks"  # a restricted sandbox asked to step aside
    SANDBOX_BOUNDS_IT = "sandbox_bounds_it"
    NO_CODEX_SANDBOX = "no_codex_sandbox"  # unrestricted or external: nothing to escalate


@dataclass(frozen=True)
class UnmatchedVerdict:
    decision: Decision
    why: Why


def unmatched_verdict(
    policy: ApprovalPolicy,
    fs_kind: FsSandboxKind,
    permissions: SandboxPermissions,
    *,
    dangerous: bool,
) -> UnmatchedVerdict:
    kind = policy.kind
    if dangerous:
        # Never cannot ask, so it refuses; everyone else asks rather than refuse.
        if kind is ApprovalPolicyKind.NEVER:
            return UnmatchedVerdict(Decision.FORBIDDEN, Why.DANGEROUS_NEVER)
        return UnmatchedVerdict(Decision.PROMPT, Why.DANGEROUS_ASK)
    if kind in (ApprovalPolicyKind.NEVER, ApprovalPolicyKind.ON_FAILURE):
        return UnmatchedVerdict(Decision.ALLOW, Why.NEVER_RELIES_ON_SANDBOX)
    if kind is ApprovalPolicyKind.UNTRUSTED:
        # Anything no allow rule covers is asked, known-safe or not (C.0 point 1).
        return UnmatchedVerdict(Decision.PROMPT, Why.UNTRUSTED_ASKS)
    # on-request and granular: only a restricted sandbox asked to step aside needs a question.
    if fs_kind is not FsSandboxKind.RESTRICTED:
        return UnmatchedVerdict(Decision.ALLOW, Why.NO_CODEX_SANDBOX)
    if permissions.requests_sandbox_override:
        return UnmatchedVerdict(Decision.PROMPT, Why.OVERRIDE_ASKS)
    return UnmatchedVerdict(Decision.ALLOW, Why.SANDBOX_BOUNDS_IT)


def unmatched_decision(
    policy: ApprovalPolicy,
    fs_kind: FsSandboxKind,
    permissions: SandboxPermissions,
    *,
    dangerous: bool,
) -> Decision:
    return unmatched_verdict(policy, fs_kind, permissions, dangerous=dangerous).decision


def is_dangerous(argv: Sequence[str]) -> bool:
    from shellgate.shell.dangerous import dangerous_command_match

    kind: object = dangerous_command_match(list(argv))
    return kind is not None


def make_fallback(context: ExecContext) -> Fallback:
    """The heuristics callback the policy consults for each command no rule matched."""
    policy = context.approval_policy
    fs_kind = context.fs_kind
    permissions = context.sandbox_permissions

    def fallback(argv: Sequence[str]) -> Decision:
        return unmatched_decision(policy, fs_kind, permissions, dangerous=is_dangerous(argv))

    return fallback
