"""The requirements' clamp of a session and the resolver's config values, with the texts Codex
0.169.0/0.171.0's app-server printed (configWarning, thread/start errors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.approval.context import NEVER, ON_REQUEST, UNTRUSTED, SandboxMode
from shellgate.codexconfig.requirements import parse_requirements
from shellgate.codexconfig.resolve import resolve
from shellgate.codexconfig.session import NEVER_WITHOUT_FULL_ACCESS, SessionError, clamp
from shellgate.codexconfig.trust import ConfigError

PATH = "/etc/codex/requirements.toml"
READ_ONLY = (
    "Managed { file_system: Restricted { entries: [FileSystemSandboxEntry { path: Special { "
    "value: Root }, access: Read, missing_path_behavior: None }], glob_scan_max_depth: None }, "
    "network: Restricted }"
)


def req(text: str):  # type: ignore[no-untyped-def]
    return parse_requirements(text, PATH, base=Path("/etc/codex"))


def test_a_disallowed_policy_falls_back_to_the_first_allowed() -> None:
    s = clamp(req('allowed_approval_policies = ["on-request", "untrusted"]'), NEVER,
              SandboxMode.WORKSPACE_WRITE)  # fmt: skip
    assert s.approval_policy == ON_REQUEST and s.requested_approval == NEVER and s.clamped
    assert s.warnings == (
        "Configured value for `approval_policy` is disallowed by requirements; falling back to "
        "required value OnRequest. Details: invalid value for `approval_policy`: `Never` is not "
        f"in the allowed set [OnRequest, UnlessTrusted] (set by {PATH})",
    )


def test_a_disallowed_sandbox_falls_back_to_read_only() -> None:
    s = clamp(req('allowed_sandbox_modes = ["read-only"]'), UNTRUSTED, SandboxMode.WORKSPACE_WRITE)
    assert s.sandbox is SandboxMode.READ_ONLY
    assert s.warnings == (
        "Configured value for `permission_profile` is disallowed by requirements; falling back "
        f"to required value {READ_ONLY}. Details: invalid value for `sandbox_mode`: "
        f"`WorkspaceWrite` is not in the allowed set [ReadOnly] (set by {PATH})",
    )


def test_deny_read_disallows_full_access() -> None:
    r = req('[permissions.filesystem]\ndeny_read = ["/srv/secret"]')
    s = clamp(r, ON_REQUEST, SandboxMode.DANGER_FULL_ACCESS)
    assert s.sandbox is SandboxMode.READ_ONLY and s.deny_read == ("/srv/secret",)
    assert s.warnings[0].endswith(
        "`DangerFullAccess` is not in the allowed set [read-only, workspace-write] "
        f"(set by {PATH})"
    )
    with pytest.raises(SessionError) as err:
        clamp(r, NEVER, SandboxMode.DANGER_FULL_ACCESS)
    assert err.value.message == NEVER_WITHOUT_FULL_ACCESS


def test_never_with_a_disallowed_full_access_is_refused() -> None:
    r = req('allowed_approval_policies = ["never"]\nallowed_sandbox_modes = ["read-only"]')
    with pytest.raises(SessionError) as err:
        clamp(r, NEVER, SandboxMode.DANGER_FULL_ACCESS)
    assert err.value.message.startswith(
        '`approval_policy = "never"` cannot be used because requirements do not allow '
        '`sandbox_mode = "danger-full-access"`; Codex would fall back to read-only permissions '
        "with approvals disabled."
    )
    assert clamp(r, NEVER, SandboxMode.WORKSPACE_WRITE).sandbox is SandboxMode.READ_ONLY


def test_config_files_user_over_system_flags_over_both(tmp_path: Path) -> None:
    system, home, ws = tmp_path / "sys", tmp_path / "home", tmp_path / "ws"
    for d in (system, home, ws):
        d.mkdir()
    (system / "config.toml").write_text('approval_policy = "never"\nsandbox_mode = "read-only"\n')
    (system / "requirements.toml").write_text('allowed_approval_policies = ["on-request"]\n')
    config = resolve(ws, codex_home=home, system_dir=system)
    s = config.session()
    assert (s.approval_policy, s.sandbox) == (ON_REQUEST, SandboxMode.READ_ONLY)
    assert s.requested_approval == NEVER and len(s.warnings) == 1
    (home / "config.toml").write_text('approval_policy = "on-request"\n')
    s = resolve(ws, codex_home=home, system_dir=system).session()
    assert s.requested_approval == ON_REQUEST and s.warnings == ()
    # a flag beats the files; the system file's disallowed value is still warned about once
    (home / "config.toml").unlink()
    s = resolve(ws, codex_home=home, system_dir=system).session(UNTRUSTED)
    assert s.approval_policy == ON_REQUEST
    named = [w.split("`approval_policy`: ")[1].split(" ")[0] for w in s.warnings]
    assert named == ["`Never`", "`UnlessTrusted`"]


def test_untrusted_in_a_config_file_is_refused_at_its_position(tmp_path: Path) -> None:
    system, home = tmp_path / "sys", tmp_path / "home"
    system.mkdir()
    home.mkdir()
    (home / "config.toml").write_text('model = "m"\n  approval_policy = "untrusted"\n')
    with pytest.raises(ConfigError) as err:
        resolve(tmp_path, codex_home=home, system_dir=system)
    assert (err.value.message, err.value.line, err.value.column) == (
        'approval_policy = "untrusted" is no longer supported; remove this setting', 2, 3)
