"""The inputs of Codex's approval decision: approval policy, sandbox and the call's permissions.

Values are Codex's own spellings (kebab-case policies, `read-only` sandbox modes, snake_case
permissions) so that CLI flags, JSON and the conformance corpus share one vocabulary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum


class ApprovalPolicyKind(Enum):
    UNTRUSTED = "untrusted"  # Codex's UnlessTrusted
    ON_FAILURE = "on-failure"  # gone from 0.169.0's accepted list; behaves like never mostly
    ON_REQUEST = "on-request"
    NEVER = "never"
    GRANULAR = "granular"


# Rust Debug names, for the messages that print the policy.
_DEBUG = {
    ApprovalPolicyKind.UNTRUSTED: "UnlessTrusted",
    ApprovalPolicyKind.ON_FAILURE: "OnFailure",
    ApprovalPolicyKind.ON_REQUEST: "OnRequest",
    ApprovalPolicyKind.NEVER: "Never",
}

GRANULAR_FLAGS = (
    "sandbox_approval",
    "rules",
    "skill_approval",
    "request_permissions",
    "mcp_elicitations",
)
# serde: these two carry #[serde(default)] in GranularApprovalConfig; the others are required.
_GRANULAR_OPTIONAL = frozenset({"skill_approval", "request_permissions"})


@dataclass(frozen=True)
class GranularConfig:
    """The flags of `AskForApproval::Granular`: which questions may be asked."""

    sandbox_approval: bool
    rules: bool
    skill_approval: bool = False
    request_permissions: bool = False
    mcp_elicitations: bool = False

    def debug(self) -> str:
        flags = ", ".join(f"{name}: {str(getattr(self, name)).lower()}" for name in GRANULAR_FLAGS)
        return f"GranularApprovalConfig {{ {flags} }}"

    def to_json(self) -> dict[str, bool]:
        return {name: bool(getattr(self, name)) for name in GRANULAR_FLAGS}


@dataclass(frozen=True)
class ApprovalPolicy:
    """Codex's `AskForApproval`: when a person may be asked; flags only for granular."""

    kind: ApprovalPolicyKind
    granular: GranularConfig | None = None

    def __post_init__(self) -> None:
        if (self.kind is ApprovalPolicyKind.GRANULAR) != (self.granular is not None):
            raise ValueError("a granular policy needs its flags, and only a granular one has them")

    @classmethod
    def parse(cls, raw: object) -> ApprovalPolicy:
        """`untrusted`, `on-request`, ... or `{"granular": {...}}` (a dict or its JSON text).

        Raises ValueError with a message fit for a user.
        """
        if isinstance(raw, str):
            text = raw.strip()
            if text.startswith("{"):
                try:
                    raw = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"invalid approval policy JSON: {exc}") from None
            else:
                try:
                    kind = ApprovalPolicyKind(text)
                except ValueError:
                    raise ValueError(_unknown_policy(text)) from None
                if kind is ApprovalPolicyKind.GRANULAR:
                    raise ValueError(
                        'granular needs its flags, e.g. {"granular": {"sandbox_approval": false, '
                        '"rules": true, "mcp_elicitations": true}}'
                    )
                return cls(kind)
        if isinstance(raw, Mapping):
            if set(raw) != {"granular"}:
                raise ValueError('a policy object must be {"granular": {...}}')
            return cls(ApprovalPolicyKind.GRANULAR, _parse_granular(raw["granular"]))
        raise ValueError(_unknown_policy(repr(raw)))

    @property
    def is_never(self) -> bool:
        return self.kind is ApprovalPolicyKind.NEVER

    def allows_sandbox_approval(self) -> bool:
        """False under granular with `sandbox_approval: false` (its only flag-gated variant)."""
        return self.granular is None or self.granular.sandbox_approval

    def debug(self) -> str:
        """Rust's `{:?}` of AskForApproval, as Codex prints it in refusals."""
        if self.granular is not None:
            return f"Granular({self.granular.debug()})"
        return _DEBUG[self.kind]

    def to_json(self) -> str | dict[str, dict[str, bool]]:
        if self.granular is not None:
            return {"granular": self.granular.to_json()}
        return self.kind.value

    def label(self) -> str:
        """Short human form: `on-request`, `granular(sandbox_approval=false, ...)`."""
        if self.granular is None:
            return self.kind.value
        flags = ", ".join(
            f"{name}={str(getattr(self.granular, name)).lower()}" for name in GRANULAR_FLAGS
        )
        return f"granular({flags})"


def _unknown_policy(text: str) -> str:
    choices = ", ".join(k.value for k in ApprovalPolicyKind if k is not ApprovalPolicyKind.GRANULAR)
    return f"unknown approval policy {text}: expected one of {choices} or a granular JSON object"


def _parse_granular(raw: object) -> GranularConfig:
    if not isinstance(raw, Mapping):
        raise ValueError("granular flags must be an object of booleans")
    unknown = sorted(set(raw) - set(GRANULAR_FLAGS))
    if unknown:
        raise ValueError(
            f"unknown granular flag {unknown[0]!r}: expected {', '.join(GRANULAR_FLAGS)}"
        )
    missing = [n for n in GRANULAR_FLAGS if n not in raw and n not in _GRANULAR_OPTIONAL]
    if missing:
        raise ValueError(f"granular flag {missing[0]!r} is required")
    values: dict[str, bool] = {}
    for name, value in raw.items():
        if not isinstance(value, bool):
            raise ValueError(f"granular flag {name!r} must be true or false")
        values[str(name)] = value
    return GranularConfig(**values)


UNTRUSTED = ApprovalPolicy(ApprovalPolicyKind.UNTRUSTED)
ON_FAILURE = ApprovalPolicy(ApprovalPolicyKind.ON_FAILURE)
ON_REQUEST = ApprovalPolicy(ApprovalPolicyKind.ON_REQUEST)
NEVER = ApprovalPolicy(ApprovalPolicyKind.NEVER)


class FsSandboxKind(Enum):
    """What bounds the filesystem: Codex's sandbox, nothing, or someone else's sandbox."""

    RESTRICTED = "restricted"
    UNRESTRICTED = "unrestricted"
    EXTERNAL = "external_sandbox"

    @classmethod
    def parse(cls, raw: str) -> FsSandboxKind:
        """Also reads the corpus' permission-profile labels, e.g. `read_only (restricted)`."""
        text = raw.strip()
        if text.endswith(")") and "(" in text:
            text = text[text.rindex("(") + 1 : -1]
        if text == "external":
            return cls.EXTERNAL
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f"unknown filesystem sandbox kind {raw!r}") from None


class SandboxMode(Enum):
    READ_ONLY = "read-only"
    WORKSPACE_WRITE = "workspace-write"
    DANGER_FULL_ACCESS = "danger-full-access"
    # Not a CLI choice: Codex's SandboxPolicy::ExternalSandbox (someone else sandboxes).
    EXTERNAL_SANDBOX = "external-sandbox"

    @property
    def fs_kind(self) -> FsSandboxKind:
        return _MODE_KIND[self._value_]


# Keyed by value: an enum member's hash is Enum.__hash__, Python code, several times slower.
_MODE_KIND = {
    SandboxMode.READ_ONLY.value: FsSandboxKind.RESTRICTED,
    SandboxMode.WORKSPACE_WRITE.value: FsSandboxKind.RESTRICTED,
    SandboxMode.DANGER_FULL_ACCESS.value: FsSandboxKind.UNRESTRICTED,
    SandboxMode.EXTERNAL_SANDBOX.value: FsSandboxKind.EXTERNAL,
}

CLI_SANDBOX_MODES = (
    SandboxMode.READ_ONLY,
    SandboxMode.WORKSPACE_WRITE,
    SandboxMode.DANGER_FULL_ACCESS,
)


class SandboxPermissions(Enum):
    """What one tool call asks of the sandbox."""

    USE_DEFAULT = "use_default"
    REQUIRE_ESCALATED = "require_escalated"
    WITH_ADDITIONAL_PERMISSIONS = "with_additional_permissions"

    @property
    def requests_sandbox_override(self) -> bool:
        return self is not SandboxPermissions.USE_DEFAULT

    @property
    def requires_escalated(self) -> bool:
        return self is SandboxPermissions.REQUIRE_ESCALATED


@dataclass(frozen=True)
class ExecContext:
    """Everything besides the rules that the decision for one command depends on."""

    approval_policy: ApprovalPolicy = ON_REQUEST
    sandbox: SandboxMode = SandboxMode.WORKSPACE_WRITE
    sandbox_permissions: SandboxPermissions = SandboxPermissions.USE_DEFAULT
    justification: str | None = None  # the model's, for an escalated call
    prefix_rule: tuple[str, ...] | None = None  # the model-requested amendment, if any
    fs_policy_has_denied_reads: bool = False
    fs_kind_override: FsSandboxKind | None = None  # tables give the kind, not a mode

    @property
    def fs_kind(self) -> FsSandboxKind:
        return self.fs_kind_override or self.sandbox.fs_kind
