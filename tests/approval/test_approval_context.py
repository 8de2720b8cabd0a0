from __future__ import annotations

import pytest

from shellgate.approval.context import (
    NEVER,
    ON_REQUEST,
    UNTRUSTED,
    ApprovalPolicy,
    ApprovalPolicyKind,
    ExecContext,
    FsSandboxKind,
    GranularConfig,
    SandboxMode,
    SandboxPermissions,
)


def test_named_policies_parse_and_print_as_rust_debug() -> None:
    assert ApprovalPolicy.parse("never") == NEVER
    assert ApprovalPolicy.parse("untrusted").debug() == "UnlessTrusted"
    assert ApprovalPolicy.parse("on-request").debug() == "OnRequest"
    assert ApprovalPolicy.parse("on-failure").debug() == "OnFailure"
    assert NEVER.debug() == "Never"


def test_granular_json_parses_with_serde_defaults() -> None:
    policy = ApprovalPolicy.parse(
        '{"granular": {"sandbox_approval": false, "rules": true, "mcp_elicitations": true}}'
    )
    assert policy.kind is ApprovalPolicyKind.GRANULAR
    assert policy.granular == GranularConfig(False, True, False, False, True)
    assert policy.debug() == (
        "Granular(GranularApprovalConfig { sandbox_approval: false, rules: true, "
        "skill_approval: false, request_permissions: false, mcp_elicitations: true })"
    )
    assert not policy.allows_sandbox_approval()
    assert ApprovalPolicy.parse(policy.to_json()) == policy


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("sometimes", "unknown approval policy sometimes"),
        ("granular", "granular needs its flags"),
        ('{"granular": {"sandbox_approval": 1, "rules": true, "mcp_elicitations": true}}',
         "must be true or false"),
        ('{"granular": {"sandbox_aproval": true, "rules": true, "mcp_elicitations": true}}',
         "unknown granular flag 'sandbox_aproval'"),
        ('{"granular": {"rules": true, "mcp_elicitations": true}}',
         "granular flag 'sandbox_approval' is required"),
        ('{"granular": ', "invalid approval policy JSON"),
        ('{"never": {}}', "must be {\"granular\""),
    ],
)  # fmt: skip
def test_bad_policies_say_what_is_wrong(raw: str, words: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        ApprovalPolicy.parse(raw)
    assert words in str(info.value)


def test_sandbox_modes_map_to_filesystem_kinds() -> None:
    assert SandboxMode("read-only").fs_kind is FsSandboxKind.RESTRICTED
    assert SandboxMode("workspace-write").fs_kind is FsSandboxKind.RESTRICTED
    assert SandboxMode("danger-full-access").fs_kind is FsSandboxKind.UNRESTRICTED
    assert SandboxMode.EXTERNAL_SANDBOX.fs_kind is FsSandboxKind.EXTERNAL
    assert FsSandboxKind.parse("read_only (restricted)") is FsSandboxKind.RESTRICTED
    assert FsSandboxKind.parse("external") is FsSandboxKind.EXTERNAL
    with pytest.raises(ValueError):
        FsSandboxKind.parse("sideways")


def test_permissions() -> None:
    assert not SandboxPermissions.USE_DEFAULT.requests_sandbox_override
    assert SandboxPermissions.WITH_ADDITIONAL_PERMISSIONS.requests_sandbox_override
    assert SandboxPermissions.REQUIRE_ESCALATED.requires_escalated
    ctx = ExecContext(UNTRUSTED, fs_kind_override=FsSandboxKind.EXTERNAL)
    assert ctx.fs_kind is FsSandboxKind.EXTERNAL
    assert ExecContext().approval_policy == ON_REQUEST


def test_granular_flags_only_on_granular() -> None:
    with pytest.raises(ValueError):
        ApprovalPolicy(ApprovalPolicyKind.NEVER, GranularConfig(True, True))
    with pytest.raises(ValueError):
        ApprovalPolicy(ApprovalPolicyKind.GRANULAR)
