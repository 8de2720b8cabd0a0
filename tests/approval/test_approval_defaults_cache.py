from __future__ import annotations

from shellgate.approval.cache import ApprovalStore, shell_approval_key
from shellgate.approval.context import (
    NEVER,
    ON_FAILURE,
    ON_REQUEST,
    UNTRUSTED,
    ApprovalPolicy,
    FsSandboxKind,
    SandboxPermissions,
)
from shellgate.approval.defaults import (
    SandboxOverride,
    default_exec_approval_requirement,
    sandbox_override_for_first_attempt,
    wants_no_sandbox_approval,
)
from shellgate.approval.requirement import Forbidden, NeedsApproval, Skip
from shellgate.approval.review import ReviewDecision

NOSBX = ApprovalPolicy.parse(
    {"granular": {"sandbox_approval": False, "rules": True, "mcp_elicitations": True}}
)


def test_default_requirement() -> None:
    restricted = FsSandboxKind.RESTRICTED
    assert default_exec_approval_requirement(ON_FAILURE, restricted) == Skip(False)
    assert default_exec_approval_requirement(UNTRUSTED, FsSandboxKind.UNRESTRICTED) == (
        NeedsApproval(None)
    )
    assert default_exec_approval_requirement(ON_REQUEST, restricted) == NeedsApproval(None)
    assert default_exec_approval_requirement(NOSBX, restricted) == Forbidden(
        "approval policy disallowed sandbox approval prompt"
    )


def test_first_attempt_denied_reads_keep_the_sandbox() -> None:
    esc = SandboxPermissions.REQUIRE_ESCALATED
    assert (
        sandbox_override_for_first_attempt(esc, NeedsApproval(None))
        is SandboxOverride.BYPASS_SANDBOX_FIRST_ATTEMPT
    )
    assert (
        sandbox_override_for_first_attempt(esc, Skip(True), fs_policy_has_denied_reads=True)
        is SandboxOverride.NO_OVERRIDE
    )


def test_wants_no_sandbox_approval() -> None:
    assert wants_no_sandbox_approval(UNTRUSTED)
    assert wants_no_sandbox_approval(ON_FAILURE)
    assert not wants_no_sandbox_approval(ON_REQUEST)
    assert not wants_no_sandbox_approval(NEVER)
    assert not wants_no_sandbox_approval(NOSBX)


def test_session_store_skips_only_when_every_key_was_approved_for_the_session() -> None:
    plain = shell_approval_key(["bash", "-lc", "ls"], "/w")
    other = shell_approval_key(["bash", "-lc", "ls"], "/elsewhere")
    esc = SandboxPermissions.REQUIRE_ESCALATED
    escalated = shell_approval_key(["bash", "-lc", "ls"], "/w", esc)
    assert len({plain, other, escalated}) == 3
    store = ApprovalStore()
    store.remember([plain], ReviewDecision.APPROVED)  # once only: not remembered
    assert store.lookup([plain]) is None
    store.remember([plain], ReviewDecision.APPROVED_FOR_SESSION)
    assert store.lookup([plain]) is ReviewDecision.APPROVED_FOR_SESSION
    assert store.lookup([plain, other]) is None
    assert store.lookup([]) is None
    assert len(store) == 1


def test_key_uses_the_canonical_command() -> None:
    # `bash -lc 'ls'` and `/bin/bash -lc 'ls'` are different shells to Codex's canonical key
    # (the C1 variant keeps the shell path), but the same script text gives the same key.
    a = shell_approval_key(["bash", "-lc", "ls"], "/w")
    assert a == shell_approval_key(["bash", "-lc", "ls"], "/w")
    assert '"cwd":"/w"' in a and '"sandbox_permissions":"use_default"' in a
