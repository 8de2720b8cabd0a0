"""`/etc/codex/requirements.toml`, typed: what an admin requires of every Codex session.

Read as Codex 0.169.0 and 0.171.0 read it (../shared/spec/managed-tier.md; every message below
was printed by both binaries): the TOML is deserialised first (a wrong type stops Codex with
`failed to parse requirements layer PATH: …` naming the key path without indexes), then the
rules are checked (`invalid rules in requirements (set by PATH): …`), then the constraints.
ShellGate adds what Codex does not print: the line and column of the key at fault.

Only the parts ShellGate enforces are typed: `[rules] prefix_rules`, `allowed_approval_policies`,
`allowed_sandbox_modes`, `[permissions.filesystem] deny_read` and `[hooks]`. Codex's other
tables (mcp_servers, features, …) are accepted unread; a top-level key Codex does not know, or
an unknown key in a rule or pattern token, is a warning in Codex's words, not an error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shellgate.codexconfig.managed_hooks import HOOK_EVENTS as HOOK_EVENTS
from shellgate.codexconfig.managed_hooks import HookCommand as HookCommand
from shellgate.codexconfig.managed_hooks import HookGroup as HookGroup
from shellgate.codexconfig.managed_hooks import ManagedHooks, parse_hooks
from shellgate.codexconfig.serde_reader import Reader, as_table, invalid, string, strings, variants
from shellgate.codexconfig.serde_reader import RequirementsError as RequirementsError
from shellgate.codexconfig.tomlpos import Path as KeyPath
from shellgate.codexconfig.tomlpos import toml_error_position
from shellgate.rules.decision import Decision
from shellgate.rules.rule import PrefixRule
from shellgate.rules.source import SourceSpan

ManagedDecision = Literal["forbidden", "prompt", "prompt-user"]
LAYER = "requirements"  # the layer name of managed rules in traces

APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "granular", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access", "external-sandbox")
REVIEWERS = ("user", "auto_review")  # allowed_approvals_reviewers' variants
_DECISIONS = ("allow", "prompt", "prompt-user", "forbidden")
_MODE_DEBUG = {
    "read-only": "ReadOnly",
    "workspace-write": "WorkspaceWrite",
    "danger-full-access": "DangerFullAccess",
    "external-sandbox": "ExternalSandbox",
}

# Top-level keys Codex 0.171.0 deserialises (each probed: a wrong type is an error, not a
# warning). Any other top-level key is reported ignored, as Codex reports it.
KNOWN_KEYS = frozenset(
    {
        "rules", "hooks", "permissions", "allowed_approval_policies", "allowed_sandbox_modes",
        "mcp_servers", "features", "windows", "apps", "plugins", "otel", "models", "marketplaces",
        "auto_review", "allowed_login_methods", "config_server", "allowed_chatgpt_workspaces",
        "unsafe_enforce_sqlite_journal_mode", "allowed_approvals_reviewers",
        "remote_sandbox_config", "allowed_permission_profiles", "allow_managed_hooks_only",
        "allowed_web_search_modes", "allow_appshots", "allow_browser_and_computer_use",
        "allow_remote_control", "enforce_residency", "additional_developer_instructions",
        "guardian_policy_config", "guardian_extra_policy", "in_app_browser", "experimental_network",
        "computer_use", "browser_use", "application",
    }
)

_RULE_KEYS = frozenset({"pattern", "decision", "justification", "canonical_matching"})
_TOKEN_KEYS = frozenset({"token", "any_of"})


@dataclass(frozen=True)
class ManagedRule:
    """One `prefix_rules` entry: alternatives per position, an admin's decision."""

    index: int
    pattern: tuple[tuple[str, ...], ...]
    decision: ManagedDecision
    justification: str | None
    canonical_matching: bool
    line: int
    column: int

    @property
    def rule_decision(self) -> Decision:
        """What the rules engine weighs: prompt-user asks, as prompt does (its difference is
        who may answer: see `resolve`)."""
        return Decision.FORBIDDEN if self.decision == "forbidden" else Decision.PROMPT


@dataclass(frozen=True)
class RequirementsWarning:
    """A key Codex ignores (`Codex is ignoring … unrecognized configuration setting`)."""

    key: str  # Codex's dotted spelling, indexes included: `rules.prefix_rules.0.colour`
    line: int
    column: int


@dataclass(frozen=True)
class Requirements:
    path: str
    rules: tuple[ManagedRule, ...] = ()
    allowed_approval_policies: tuple[str, ...] | None = None  # None: no constraint
    allowed_sandbox_modes: tuple[str, ...] | None = None
    deny_read: tuple[str, ...] = ()  # absolute paths or globs
    hooks: ManagedHooks | None = None
    warnings: tuple[RequirementsWarning, ...] = ()
    allow_managed_hooks_only: bool = False  # the user's (trusted) hooks do not run
    # who may answer Codex's questions (None: anyone): "user", "auto_review"
    allowed_approvals_reviewers: tuple[str, ...] | None = None
    guardian_policy_config: str | None = None  # replaces the reviewer's Security Policy body
    guardian_extra_policy: str | None = None  # appended to the default Security Policy

    def prefix_rules(self) -> list[PrefixRule]:
        """The managed rules as the policy holds them (layer "requirements"); a first position
        with alternatives is one rule per alternative, as Codex indexes them."""
        out: list[PrefixRule] = []
        for r in self.rules:
            span = SourceSpan(self.path, r.line, r.column, r.line, r.column)
            rest = tuple(r.pattern[1:])
            for head in r.pattern[0]:
                out.append(
                    PrefixRule(head, rest, r.rule_decision, r.justification, span, LAYER,
                               r.canonical_matching, r.decision == "prompt-user")
                )
        return out

    def warning_text(self) -> str | None:
        """Codex's warning for the keys it ignores, None when there are none."""
        if not self.warnings:
            return None
        n = len(self.warnings)
        head = (
            f"Codex is ignoring {n} unrecognized configuration setting{'' if n == 1 else 's'}. "
            "Check for typos or deprecated settings."
        )
        lines = [f"  requirements ({self.path}): `{w.key}` is ignored." for w in self.warnings]
        return "\n".join([head, *lines])


def parse_requirements(text: str, path: str, *, base: Path) -> Requirements:
    """requirements.toml's text, typed. `base` resolves relative deny_read paths (the system
    folder). Raises RequirementsError with Codex's message and the key's position."""
    # deferred: tomllib (~5-11 ms) only when a requirements.toml exists
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message, line, column = toml_error_position(exc)
        raise RequirementsError(
            f"failed to parse requirements layer {path}: TOML parse error: {message}",
            path=path, line=line, column=column, code="requirements-parse",
        ) from None  # fmt: skip
    r = Reader(text, path)
    warnings: list[RequirementsWarning] = []

    def ignored(keys: KeyPath) -> None:
        warnings.append(RequirementsWarning(".".join(str(k) for k in keys), *r.at(keys)))

    rules_raw: list[tuple[int, Mapping[str, object]]] | None = None
    approval: list[str] | None = None
    sandbox: list[str] | None = None
    deny: list[str] = []
    hooks: ManagedHooks | None = None
    managed_only = False
    reviewers: list[str] | None = None
    guardian: dict[str, str] = {}
    for key, value in data.items():
        if key not in KNOWN_KEYS:
            ignored((key,))
        elif key == "rules":
            rules_raw = _rules_tables(r, value, ignored)
        elif key == "allowed_approval_policies":
            approval = variants(r, value, (key,), APPROVAL_POLICIES)
            if "granular" in approval:  # a newtype variant: it needs its flags
                raise r.type_error(
                    "invalid type: unit variant, expected newtype variant",
                    (key, approval.index("granular")),
                )  # fmt: skip
        elif key == "allowed_sandbox_modes":
            sandbox = variants(r, value, (key,), SANDBOX_MODES)
        elif key == "permissions":
            deny = _deny_read(r, value, base)
        elif key == "hooks":
            hooks = parse_hooks(r, value)
        elif key == "allow_managed_hooks_only":
            if not isinstance(value, bool):
                raise r.type_error(invalid(value, "a boolean"), (key,))
            managed_only = value
        elif key == "allowed_approvals_reviewers":
            reviewers = variants(r, value, (key,), REVIEWERS)
        elif key in ("guardian_policy_config", "guardian_extra_policy"):
            guardian[key] = string(r, value, (key,))
    rules = _check_rules(r, rules_raw) if rules_raw is not None else ()
    for name, chosen in (("allowed_approval_policies", approval),
                         ("allowed_sandbox_modes", sandbox)):  # fmt: skip
        if chosen is not None and not chosen:
            raise r.fail(f"field `{name}` cannot be empty", (name,), code="requirements-empty")
    if sandbox and "read-only" not in sandbox:
        shown = ", ".join(_MODE_DEBUG[m] for m in sandbox)
        raise r.fail(
            f"invalid value for `allowed_sandbox_modes`: `[{shown}]` is not in the allowed set "
            f"must include 'read-only' to allow any PermissionProfile (set by {path})",
            ("allowed_sandbox_modes",), code="requirements-read-only",
        )  # fmt: skip
    return Requirements(
        path, rules, None if approval is None else tuple(approval),
        None if sandbox is None else tuple(sandbox), tuple(deny), hooks, tuple(warnings),
        managed_only, None if reviewers is None else tuple(reviewers),
        guardian.get("guardian_policy_config"), guardian.get("guardian_extra_policy"),
    )  # fmt: skip


def _rules_tables(
    r: Reader, value: object, ignored: object
) -> list[tuple[int, Mapping[str, object]]]:
    """Deserialisation of `[rules]` (types only; Codex checks the content afterwards)."""
    assert callable(ignored)
    table = as_table(r, value, ("rules",), "RequirementsExecPolicyToml")
    for key in table:
        if key != "prefix_rules":
            ignored(("rules", key))
    if "prefix_rules" not in table:
        raise r.type_error("missing field `prefix_rules`", ("rules",))
    raw = table["prefix_rules"]
    keys: KeyPath = ("rules", "prefix_rules")
    if not isinstance(raw, list):
        raise r.type_error(invalid(raw, "a sequence"), keys)
    out: list[tuple[int, Mapping[str, object]]] = []
    for i, rule in enumerate(raw):
        rk = (*keys, i)
        rule = as_table(r, rule, rk, "RequirementsExecPolicyPrefixRuleToml")
        for key, v in rule.items():
            if key not in _RULE_KEYS:
                ignored((*rk, key))
            elif key == "pattern":
                if not isinstance(v, list):
                    raise r.type_error(invalid(v, "a sequence"), (*rk, key))
                for j, token in enumerate(v):
                    tk = (*rk, key, j)
                    token = as_table(r, token, tk, "RequirementsExecPolicyPatternTokenToml")
                    for tkey, tv in token.items():
                        if tkey not in _TOKEN_KEYS:
                            ignored((*tk, tkey))
                        elif tkey == "token":
                            string(r, tv, (*tk, tkey))
                        else:
                            strings(r, tv, (*tk, tkey))
            elif key == "decision":
                if not isinstance(v, str):
                    raise r.type_error(invalid(v, "a string"), (*rk, key))
                if v not in _DECISIONS:
                    choices = ", ".join(f"`{d}`" for d in _DECISIONS)
                    raise r.type_error(
                        f"unknown variant `{v}`, expected one of {choices}", (*rk, key)
                    )
            elif key == "justification":
                string(r, v, (*rk, key))
            elif not isinstance(v, bool):
                raise r.type_error(invalid(v, "a boolean"), (*rk, key))
        if "pattern" not in rule:
            raise r.type_error("missing field `pattern`", rk)
        out.append((i, rule))
    return out


def _check_rules(
    r: Reader, raw: list[tuple[int, Mapping[str, object]]]
) -> tuple[ManagedRule, ...]:
    """Codex's `to_policy` checks, in its order."""
    if not raw:
        raise r.rules_error("rules prefix_rules cannot be empty", ("rules", "prefix_rules"))
    rules: list[ManagedRule] = []
    for i, rule in raw:
        rk: KeyPath = ("rules", "prefix_rules", i)
        what = f"rules prefix_rule at index {i}"
        justification = rule.get("justification")
        if isinstance(justification, str) and not justification.strip():
            raise r.rules_error(f"{what} has an empty justification", (*rk, "justification"))
        pattern = rule["pattern"]
        assert isinstance(pattern, list)
        if not pattern:
            raise r.rules_error(f"{what} has an empty pattern", (*rk, "pattern"))
        alternatives: list[tuple[str, ...]] = []
        for j, token in enumerate(pattern):
            why = _token_fault(token)
            if why is not None:
                raise r.rules_error(
                    f"{what} has an invalid pattern token at index {j}: {why}", (*rk, "pattern", j)
                )
            alternatives.append(
                (token["token"],) if "token" in token else tuple(token["any_of"])
            )
        decision = rule.get("decision")
        if decision == "allow":
            raise r.rules_error(
                f"{what} has decision 'allow', which is not permitted in requirements.toml: "
                "Codex merges these rules with other config and uses the most restrictive "
                "result (use 'prompt', 'prompt-user', or 'forbidden')", (*rk, "decision"),
            )  # fmt: skip
        if decision is None:
            raise r.rules_error(f"{what} is missing a decision", rk)
        line, column = r.at(rk)
        rules.append(
            ManagedRule(i, tuple(alternatives), decision,  # type: ignore[arg-type]
                        justification if isinstance(justification, str) else None,
                        bool(rule.get("canonical_matching", False)), line, column)
        )
    return tuple(rules)


def _token_fault(token: Mapping[str, object]) -> str | None:
    has_token, has_any = token.get("token") is not None, token.get("any_of") is not None
    if has_token and has_any:
        return "set either token or any_of, not both"
    if has_token:
        return "token cannot be empty" if token["token"] == "" else None
    if has_any:
        return "any_of cannot be empty" if token["any_of"] == [] else None
    return "set either token or any_of"


def _deny_read(r: Reader, value: object, base: Path) -> list[str]:
    table = as_table(r, value, ("permissions",), "PermissionsRequirementsToml")
    fs = table.get("filesystem")
    if fs is None:
        return []
    fs = as_table(r, fs, ("permissions", "filesystem"), "RawFilesystemRequirementsToml")
    if "deny_read" not in fs:
        return []
    raw = strings(r, fs["deny_read"], ("permissions", "filesystem", "deny_read"))
    return [p if os.path.isabs(p) else os.path.normpath(base / p) for p in raw]


REQUIREMENTS_FILE = "requirements.toml"


def load_requirements(system_dir: Path) -> Requirements | None:
    """`system_dir/requirements.toml` typed, None when there is none. Raises
    RequirementsError (unreadable, not UTF-8, or not what Codex accepts)."""
    path = system_dir / REQUIREMENTS_FILE
    text = read_requirements_text(path)
    return None if text is None else parse_requirements(text, str(path), base=system_dir)


def read_requirements_text(path: Path) -> str | None:
    """The file's text, None when it does not exist; RequirementsError when it cannot be read
    or is not UTF-8."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise RequirementsError(
            f"failed to read requirements layer {path}: {exc.strerror or exc}", path=str(path),
            code="requirements-read", kind="read",
        ) from None  # fmt: skip
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RequirementsError(
            f"failed to parse requirements layer {path}: not UTF-8", path=str(path), line=line,
            column=column, code="requirements-parse",
        ) from None  # fmt: skip
