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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shellgate.codexconfig.hook_matcher import matcher_error
from shellgate.codexconfig.tomlpos import Path as KeyPath
from shellgate.codexconfig.tomlpos import Position, locate, positions, toml_error_position
from shellgate.rules.decision import Decision
from shellgate.rules.errors import RulesError
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


class RequirementsError(RulesError):
    """requirements.toml is not what Codex accepts: Codex does not start, and neither does
    any ShellGate entry point (a hook blocks with this message)."""


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
class HookCommand:
    command: str
    timeout: int | None = None
    is_async: bool = False  # `async = true`: run detached, its answer ignored (as Codex does)


@dataclass(frozen=True)
class HookGroup:
    """One `[[hooks.PreToolUse]]` group: its matcher (None: every tool) and its commands."""

    matcher: str | None
    hooks: tuple[HookCommand, ...]


HOOK_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse")


@dataclass(frozen=True)
class ManagedHooks:
    managed_dir: str | None
    pre_tool_use: tuple[HookGroup, ...]
    permission_request: tuple[HookGroup, ...] = ()
    post_tool_use: tuple[HookGroup, ...] = ()

    def groups(self, event: str) -> tuple[HookGroup, ...]:
        """The groups of one of HOOK_EVENTS, in the file's order."""
        return {"PreToolUse": self.pre_tool_use, "PermissionRequest": self.permission_request,
                "PostToolUse": self.post_tool_use}[event]  # fmt: skip


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


class _Reader:
    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.found = positions(text)

    def at(self, keys: KeyPath) -> Position:
        return locate(self.found, keys)

    def fail(self, message: str, keys: KeyPath, *, code: str) -> RequirementsError:
        line, column = self.at(keys)
        return RequirementsError(message, path=self.path, line=line, column=column, code=code)

    def type_error(self, message: str, keys: KeyPath) -> RequirementsError:
        """serde's error, as Codex prints it: the key path without array indexes."""
        dotted = ".".join(k for k in keys if isinstance(k, str))
        return self.fail(
            f"failed to parse requirements layer {self.path}: {message}\nin `{dotted}`", keys,
            code="requirements-type",
        )  # fmt: skip

    def rules_error(self, message: str, keys: KeyPath) -> RequirementsError:
        return self.fail(
            f"invalid rules in requirements (set by {self.path}): {message}", keys,
            code="requirements-rules",
        )  # fmt: skip


def _unexpected(value: object) -> str:
    """serde's `Unexpected` for a TOML value."""
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return "string " + _debug(value)
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, dict):
        return "map"
    return "string " + _debug(str(value))  # dates: toml-rs hands them over as strings


def _debug(text: str) -> str:
    """Rust's `{:?}` of a str (the common escapes)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    out = out.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return f'"{out}"'


def _invalid(value: object, expected: str) -> str:
    return f"invalid type: {_unexpected(value)}, expected {expected}"


def _string(r: _Reader, value: object, keys: KeyPath, hooks: bool = False) -> str:
    if not isinstance(value, str):
        raise r.type_error(_invalid(value, "a string"), keys[:1] if hooks else keys)
    return value


def _strings(r: _Reader, value: object, keys: KeyPath) -> list[str]:
    if not isinstance(value, list):
        raise r.type_error(_invalid(value, "a sequence"), keys)
    return [_string(r, v, (*keys, i)) for i, v in enumerate(value)]


def _variants(r: _Reader, value: object, keys: KeyPath, allowed: Sequence[str]) -> list[str]:
    out: list[str] = []
    for i, item in enumerate(_strings(r, value, keys)):
        if item not in allowed:
            choices = ", ".join(f"`{a}`" for a in allowed)
            raise r.type_error(f"unknown variant `{item}`, expected one of {choices}", (*keys, i))
        out.append(item)
    return out


def _table(r: _Reader, value: object, keys: KeyPath, struct: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise r.type_error(_invalid(value, f"struct {struct}"), keys)
    return value


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
    r = _Reader(text, path)
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
            approval = _variants(r, value, (key,), APPROVAL_POLICIES)
            if "granular" in approval:  # a newtype variant: it needs its flags
                raise r.type_error(
                    "invalid type: unit variant, expected newtype variant",
                    (key, approval.index("granular")),
                )  # fmt: skip
        elif key == "allowed_sandbox_modes":
            sandbox = _variants(r, value, (key,), SANDBOX_MODES)
        elif key == "permissions":
            deny = _deny_read(r, value, base)
        elif key == "hooks":
            hooks = _hooks(r, value)
        elif key == "allow_managed_hooks_only":
            if not isinstance(value, bool):
                raise r.type_error(_invalid(value, "a boolean"), (key,))
            managed_only = value
        elif key == "allowed_approvals_reviewers":
            reviewers = _variants(r, value, (key,), REVIEWERS)
        elif key in ("guardian_policy_config", "guardian_extra_policy"):
            guardian[key] = _string(r, value, (key,))
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
    r: _Reader, value: object, ignored: object
) -> list[tuple[int, Mapping[str, object]]]:
    """Deserialisation of `[rules]` (types only; Codex checks the content afterwards)."""
    assert callable(ignored)
    table = _table(r, value, ("rules",), "RequirementsExecPolicyToml")
    for key in table:
        if key != "prefix_rules":
            ignored(("rules", key))
    if "prefix_rules" not in table:
        raise r.type_error("missing field `prefix_rules`", ("rules",))
    raw = table["prefix_rules"]
    keys: KeyPath = ("rules", "prefix_rules")
    if not isinstance(raw, list):
        raise r.type_error(_invalid(raw, "a sequence"), keys)
    out: list[tuple[int, Mapping[str, object]]] = []
    for i, rule in enumerate(raw):
        rk = (*keys, i)
        rule = _table(r, rule, rk, "RequirementsExecPolicyPrefixRuleToml")
        for key, v in rule.items():
            if key not in _RULE_KEYS:
                ignored((*rk, key))
            elif key == "pattern":
                if not isinstance(v, list):
                    raise r.type_error(_invalid(v, "a sequence"), (*rk, key))
                for j, token in enumerate(v):
                    tk = (*rk, key, j)
                    token = _table(r, token, tk, "RequirementsExecPolicyPatternTokenToml")
                    for tkey, tv in token.items():
                        if tkey not in _TOKEN_KEYS:
                            ignored((*tk, tkey))
                        elif tkey == "token":
                            _string(r, tv, (*tk, tkey))
                        else:
                            _strings(r, tv, (*tk, tkey))
            elif key == "decision":
                if not isinstance(v, str):
                    raise r.type_error(_invalid(v, "a string"), (*rk, key))
                if v not in _DECISIONS:
                    choices = ", ".join(f"`{d}`" for d in _DECISIONS)
                    raise r.type_error(
                        f"unknown variant `{v}`, expected one of {choices}", (*rk, key)
                    )
            elif key == "justification":
                _string(r, v, (*rk, key))
            elif not isinstance(v, bool):
                raise r.type_error(_invalid(v, "a boolean"), (*rk, key))
        if "pattern" not in rule:
            raise r.type_error("missing field `pattern`", rk)
        out.append((i, rule))
    return out


def _check_rules(
    r: _Reader, raw: list[tuple[int, Mapping[str, object]]]
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


def _deny_read(r: _Reader, value: object, base: Path) -> list[str]:
    table = _table(r, value, ("permissions",), "PermissionsRequirementsToml")
    fs = table.get("filesystem")
    if fs is None:
        return []
    fs = _table(r, fs, ("permissions", "filesystem"), "RawFilesystemRequirementsToml")
    if "deny_read" not in fs:
        return []
    raw = _strings(r, fs["deny_read"], ("permissions", "filesystem", "deny_read"))
    return [p if os.path.isabs(p) else os.path.normpath(base / p) for p in raw]


def _hooks(r: _Reader, value: object) -> ManagedHooks:
    """`[hooks]`: serde reports every fault inside as `in hooks` (a flattened map)."""
    table = _table(r, value, ("hooks",), "ManagedHooksRequirementsToml")
    managed_dir = table.get("managed_dir")
    if managed_dir is not None:
        _string(r, managed_dir, ("hooks", "managed_dir"), hooks=True)
    events = [_hook_groups(r, table.get(event, []), event) for event in HOOK_EVENTS]
    return ManagedHooks(managed_dir if isinstance(managed_dir, str) else None, *events)


def _hook_groups(r: _Reader, raw_groups: object, event: str) -> tuple[HookGroup, ...]:
    """The groups of one event. A managed hook Codex cannot load (a matcher that is not a
    regular expression, an empty command, a `prompt` or `agent` hook) stops Codex: every
    session fails with `failed to load required managed hooks: …` (observed, both versions)."""
    groups: list[HookGroup] = []
    if not isinstance(raw_groups, list):
        raise r.type_error(_invalid(raw_groups, "a sequence"), ("hooks",))
    for i, group in enumerate(raw_groups):
        gk: KeyPath = ("hooks", event, i)
        if not isinstance(group, dict):
            raise r.type_error(_invalid(group, "a map"), ("hooks",))
        matcher = group.get("matcher")
        if matcher is not None:
            _string(r, matcher, (*gk, "matcher"), hooks=True)
        commands: list[HookCommand] = []
        raw_hooks = group.get("hooks", [])
        if not isinstance(raw_hooks, list):
            raise r.type_error(_invalid(raw_hooks, "a sequence"), ("hooks",))
        bad = matcher_error(matcher if isinstance(matcher, str) else None)
        if bad and raw_hooks:  # a group without hooks: only a warning in Codex
            raise _unloadable(r, f"invalid matcher {_debug(str(matcher))} in {r.path}: {bad}",
                              (*gk, "matcher"))  # fmt: skip
        for h, hook in enumerate(raw_hooks):
            hk: KeyPath = (*gk, "hooks", h)
            if not isinstance(hook, dict):
                raise r.type_error(_invalid(hook, "a map"), ("hooks",))
            kind = hook.get("type", "command")
            if kind in ("prompt", "agent"):
                raise _unloadable(r, f"skipping {kind} hook in {r.path}: {kind} hooks are not "
                                  "supported yet", (*hk, "type"))  # fmt: skip
            if kind != "command":  # mcp_tool, or a type Codex does not know
                raise _unloadable(r, f"{_debug(str(kind))} hooks are not run by ShellGate "
                                  f"(in {r.path}): a managed hook it cannot run is never skipped",
                                  (*hk, "type"))  # fmt: skip
            command = _string(r, hook.get("command"), ("hooks",), hooks=True)
            if not command.strip():
                raise _unloadable(r, f"skipping empty hook command in {r.path}",
                                  (*hk, "command"))  # fmt: skip
            timeout = hook.get("timeout")
            if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int)):
                raise r.type_error(_invalid(timeout, "u64"), ("hooks",))
            is_async = hook.get("async", False)
            if not isinstance(is_async, bool):
                raise r.type_error(_invalid(is_async, "a boolean"), ("hooks",))
            commands.append(HookCommand(command, timeout, is_async))
        groups.append(HookGroup(matcher, tuple(commands)))
    return tuple(groups)


def _unloadable(r: _Reader, message: str, keys: KeyPath) -> RequirementsError:
    return r.fail(f"failed to load required managed hooks: {message}", keys,
                  code="requirements-hooks")  # fmt: skip


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
