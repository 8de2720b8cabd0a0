"""A session's approval policy and sandbox under the admin's requirements: Codex's clamp.

Observed with Codex 0.169.0/0.171.0's app-server (spec managed-tier.md; tests/codexconfig): a
disallowed approval policy falls back to the first allowed one, a disallowed sandbox mode to
read-only (requirements must allow it), each with Codex's warning; `deny_read` disallows
danger-full-access (only a sandbox can deny a read); `never` with a disallowed
danger-full-access is refused when the session starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from shellgate.approval.context import ApprovalPolicy, SandboxMode
from shellgate.rules.errors import RulesError

if TYPE_CHECKING:
    from shellgate.approval.context import ApprovalPolicy, SandboxMode
    from shellgate.codexconfig.requirements import Requirements

# Rust Debug names in Codex's warnings
_POLICY_DEBUG = {"untrusted": "UnlessTrusted", "on-failure": "OnFailure",
                 "on-request": "OnRequest", "never": "Never", "granular": "Granular"}  # fmt: skip
_MODE_DEBUG = {
    "read-only": "ReadOnly",
    "workspace-write": "WorkspaceWrite",
    "danger-full-access": "DangerFullAccess",
    "external-sandbox": "ExternalSandbox",
}
# Codex's fallback profile for read-only, as its warning prints it
_READ_ONLY_PROFILE = (
    "Managed { file_system: Restricted { entries: [FileSystemSandboxEntry { path: Special { "
    "value: Root }, access: Read, missing_path_behavior: None }], glob_scan_max_depth: None }, "
    "network: Restricted }"
)
NEVER_WITHOUT_FULL_ACCESS = (
    '`approval_policy = "never"` cannot be used because requirements do not allow '
    '`sandbox_mode = "danger-full-access"`; Codex would fall back to read-only permissions with '
    "approvals disabled. Choose an `approval_policy` based on what you need, such as "
    "`on-request`, or choose an allowed sandbox mode."
)


class SessionError(RulesError):
    """A session Codex refuses to start (the one combination requirements forbid)."""


@dataclass(frozen=True)
class Session:
    """The approval policy and sandbox a session runs under, after the requirements' clamp."""

    approval_policy: ApprovalPolicy
    sandbox: SandboxMode
    requested_approval: ApprovalPolicy
    requested_sandbox: SandboxMode
    deny_read: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # Codex's words for each fallback

    @property
    def clamped(self) -> bool:
        return (self.approval_policy, self.sandbox) != (
            self.requested_approval,
            self.requested_sandbox,
        )


def clamp(
    req: Requirements | None, approval: ApprovalPolicy, sandbox: SandboxMode
) -> Session:
    """Codex's requirements on a session: a disallowed approval policy falls back to the first
    allowed one, a disallowed sandbox mode to read-only (with Codex's warnings); `deny_read`
    disallows danger-full-access; `never` with a disallowed danger-full-access is refused."""
    if req is None:
        return Session(approval, sandbox, approval, sandbox)
    warnings: list[str] = []
    effective_a, effective_s = approval, sandbox
    allowed_a = req.allowed_approval_policies
    if allowed_a is not None and approval.kind.value not in allowed_a:
        fallback = allowed_a[0]  # never "granular": the parser refuses it without flags
        effective_a = ApprovalPolicy.parse(fallback)
        policies = ", ".join(_POLICY_DEBUG[a] for a in allowed_a)
        warnings.append(
            "Configured value for `approval_policy` is disallowed by requirements; falling back "
            f"to required value {_POLICY_DEBUG[fallback]}. Details: invalid value for "
            f"`approval_policy`: `{_POLICY_DEBUG[approval.kind.value]}` is not in the allowed "
            f"set [{policies}] (set by {req.path})"
        )
    allowed_s = req.allowed_sandbox_modes
    listed: str | None = None
    if allowed_s is not None and sandbox.value not in allowed_s:
        listed = ", ".join(_MODE_DEBUG[m] for m in allowed_s)
    elif req.deny_read and sandbox is SandboxMode.DANGER_FULL_ACCESS:
        # deny_read needs a sandbox: danger-full-access is disallowed whatever else is allowed
        # (Codex lists the rest by their config names here)
        rest = [m for m in (allowed_s or _MODE_DEBUG) if m in ("read-only", "workspace-write")]
        listed = ", ".join(rest)
    if listed is not None:
        if effective_a.is_never and sandbox is SandboxMode.DANGER_FULL_ACCESS:
            raise SessionError(NEVER_WITHOUT_FULL_ACCESS, path=req.path, code="requirements-never")
        effective_s = SandboxMode.READ_ONLY  # requirements always allow it (the parser checks)
        warnings.append(
            "Configured value for `permission_profile` is disallowed by requirements; falling "
            f"back to required value {_READ_ONLY_PROFILE}. Details: invalid value for "
            f"`sandbox_mode`: `{_MODE_DEBUG[sandbox.value]}` is not in the allowed set "
            f"[{listed}] (set by {req.path})"
        )
    return Session(effective_a, effective_s, approval, sandbox, req.deny_read, tuple(warnings))
