"""The admin's system folder hooks (`/etc/codex/hooks.json`, `/etc/codex/config.toml`
`[[hooks.<Event>]]`: managed, as Codex reads them) govern other agents through ShellGate's hook
too, and a broken one refuses every command instead of letting it through. The real
`shellgate hook` process, a scratch /etc/codex in a private mount namespace."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hookenv import Setup
from hooklayers import config_hooks, deny, hooks_json
from test_admin_hooks import hook


@pytest.fixture
def s(tmp_path: Path) -> Setup:
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no user + mount namespaces here")
    return Setup(tmp_path, {"PreToolUse": deny("system folder says no")})


@pytest.mark.parametrize("where", ["hooks.json", "config.toml"])
def test_the_system_folders_hook_refuses_for_claude_code(s: Setup, where: str) -> None:
    if where == "hooks.json":
        hooks_json(s.etc, s, ["s1"])
    else:
        config_hooks(s.etc / "config.toml", s, ["s1"], extra='model = "x"')
    done = hook(s, "claude-code", "pwd")
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"] == \
        "Command blocked by PreToolUse hook: system folder says no. Command: pwd"
    assert [c["name"] for c in s.calls()] == ["s1"]


def test_a_broken_system_hooks_json_refuses_every_command(s: Setup) -> None:
    (s.etc / "hooks.json").write_text('{"hooks": {"PreToolUse": [\n  {"matcher": "Bash",, }]}}')
    done = hook(s, "claude-code", "pwd")
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "the admin's Codex hooks do not load" in out["permissionDecisionReason"]
    assert "/etc/codex/hooks.json:2:22: failed to parse hooks config" in \
        out["permissionDecisionReason"]
