"""The decision for a command no rule matched (Codex's `render_decision_for_unmatched_command`).

Follows Codex 0.169.0's runtime and the seed documents (spec C.0, C.3): no known-safe shortcut;
"dangerous" is the full D2 classifier of shell.dangerous (ForcedRm / Other).
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.approval.context import (
    ApprovalPolicy,
    ApprovalPolicyKind,
    ExecContext,
    FsSandboxKind,
    SandboxPermissions,
)
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Fallback


def unmatched_decision(
    policy: ApprovalPolicy,
    fs_kind: FsSandboxKind,
    permissions: SandboxPermissions,
    *,
    dangerous: bool,
) -> Decision:
    kind = policy.kind
    if dangerous:
        # Never cannot ask, so it refuses; everyone else asks rather than refuse.
        return Decision.FORBIDDEN if kind is ApprovalPolicyKind.NEVER else Decision.PROMPT
    if kind in (ApprovalPolicyKind.NEVER, ApprovalPolicyKind.ON_FAILURE):
        return Decision.ALLOW  # rely on the sandbox
    if kind is ApprovalPolicyKind.UNTRUSTED:
        return Decision.PROMPT  # anything no allow rule covers is asked (C.0 point 1)
    # on-request and granular: only a restricted sandbox asked to step aside needs a question.
    if fs_kind is FsSandboxKind.RESTRICTED and permissions.requests_sandbox_override:
        return Decision.PROMPT
    return Decision.ALLOW


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
