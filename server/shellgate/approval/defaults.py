"""What the tool runtime does around a requirement (Codex's tools/sandboxing.rs, spec C.5, C.6):
the default requirement of tools that compute none, the first attempt's sandbox, and whether a
sandbox denial may turn into a question about running without it.
"""

from __future__ import annotations

from enum import Enum

from shellgate.approval.context import (
    ApprovalPolicy,
    ApprovalPolicyKind,
    FsSandboxKind,
    SandboxPermissions,
)
from shellgate.approval.requirement import ExecApprovalRequirement, Forbidden, NeedsApproval, Skip

SANDBOX_PROMPT_DISALLOWED = "approval policy disallowed sandbox approval prompt"


def default_exec_approval_requirement(
    policy: ApprovalPolicy, fs_kind: FsSandboxKind
) -> ExecApprovalRequirement:
    kind = policy.kind
    if kind is ApprovalPolicyKind.UNTRUSTED:
        return NeedsApproval(None)
    if kind in (ApprovalPolicyKind.NEVER, ApprovalPolicyKind.ON_FAILURE):
        return Skip(bypass_sandbox=False)
    # on-request and granular: a question only when Codex's own sandbox is what bounds it.
    if fs_kind is not FsSandboxKind.RESTRICTED:
        return Skip(bypass_sandbox=False)
    if not policy.allows_sandbox_approval():
        return Forbidden(SANDBOX_PROMPT_DISALLOWED)
    return NeedsApproval(None)


class SandboxOverride(Enum):
    NO_OVERRIDE = "no_override"
    BYPASS_SANDBOX_FIRST_ATTEMPT = "bypass_sandbox_first_attempt"


def sandbox_override_for_first_attempt(
    permissions: SandboxPermissions,
    requirement: ExecApprovalRequirement,
    *,
    fs_policy_has_denied_reads: bool = False,
) -> SandboxOverride:
    # Denied reads only exist inside the sandbox: leaving it would expose them (checked first,
    # as the later upstream revision does).
    if fs_policy_has_denied_reads:
        return SandboxOverride.NO_OVERRIDE
    if permissions.requires_escalated or (
        isinstance(requirement, Skip) and requirement.bypass_sandbox
    ):
        return SandboxOverride.BYPASS_SANDBOX_FIRST_ATTEMPT
    return SandboxOverride.NO_OVERRIDE


def wants_no_sandbox_approval(policy: ApprovalPolicy) -> bool:
    """May a sandbox denial be followed by "retry without the sandbox?" (shell tools)."""
    kind = policy.kind
    if kind in (ApprovalPolicyKind.UNTRUSTED, ApprovalPolicyKind.ON_FAILURE):
        return True
    return policy.granular is not None and policy.granular.sandbox_approval
