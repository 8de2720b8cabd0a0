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
from shellgate.shell.dangerous import dangerous_command_match


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
    """The fallback's decision and the branch that gave it."""

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
        return _DANGEROUS_NEVER if kind is _NEVER else _DANGEROUS_ASK
    if kind is _NEVER or kind is _ON_FAILURE:
        return _NEVER_RELIES_ON_SANDBOX
    if kind is _UNTRUSTED:
        # Anything no allow rule covers is asked, known-safe or not (C.0 point 1).
        return _UNTRUSTED_ASKS
    # on-request and granular: only a restricted sandbox asked to step aside needs a question.
    if fs_kind is not _RESTRICTED:
        return _NO_CODEX_SANDBOX
    if permissions.requests_sandbox_override:
        return _OVERRIDE_ASKS
    return _SANDBOX_BOUNDS_IT


# The fallback runs for every command no rule matched: its verdicts are shared immutable values,
# and the kinds it compares are read once (on Python 3.11 reading a member through its enum
# class, `ApprovalPolicyKind.NEVER`, goes through EnumType's __getattr__ hook: ~0.3 us a time).
_NEVER = ApprovalPolicyKind.NEVER
_ON_FAILURE = ApprovalPolicyKind.ON_FAILURE
_UNTRUSTED = ApprovalPolicyKind.UNTRUSTED
_RESTRICTED = FsSandboxKind.RESTRICTED
_DANGEROUS_NEVER = UnmatchedVerdict(Decision.FORBIDDEN, Why.DANGEROUS_NEVER)
_DANGEROUS_ASK = UnmatchedVerdict(Decision.PROMPT, Why.DANGEROUS_ASK)
_NEVER_RELIES_ON_SANDBOX = UnmatchedVerdict(Decision.ALLOW, Why.NEVER_RELIES_ON_SANDBOX)
_UNTRUSTED_ASKS = UnmatchedVerdict(Decision.PROMPT, Why.UNTRUSTED_ASKS)
_NO_CODEX_SANDBOX = UnmatchedVerdict(Decision.ALLOW, Why.NO_CODEX_SANDBOX)
_OVERRIDE_ASKS = UnmatchedVerdict(Decision.PROMPT, Why.OVERRIDE_ASKS)
_SANDBOX_BOUNDS_IT = UnmatchedVerdict(Decision.ALLOW, Why.SANDBOX_BOUNDS_IT)


def unmatched_decision(
    policy: ApprovalPolicy,
    fs_kind: FsSandboxKind,
    permissions: SandboxPermissions,
    *,
    dangerous: bool,
) -> Decision:
    return unmatched_verdict(policy, fs_kind, permissions, dangerous=dangerous).decision


def is_dangerous(argv: Sequence[str]) -> bool:
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
