"""The admin's Codex hooks (`/etc/codex/requirements.toml` `[hooks]`) govern every agent
through ShellGate: `shellgate run`, and Claude Code's, Gemini CLI's and Copilot CLI's commands
through `shellgate hook`. Measured before: where an admin's managed PreToolUse hook refuses
`pwd`, Codex refuses it (spec codex-hooks-chain.md §2, `m*-known-dir`) and ShellGate ran it.
A scratch folder stands in for /etc/codex in a private user + mount namespace
(tests/etc_overlay.py): the machine's /etc is never written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hookenv import Setup, perm, pre

from etc_overlay import etc_overlay_argv

EVENTS = {
    "claude-code": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
    "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"},
    "copilot": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
}
TOLD = "Command blocked by PreToolUse hook: managed hook says no. Command: pwd"


def env(s: Setup) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "SHELLGATE_BWRAP")}
    (s.root / "run").mkdir(mode=0o700, exist_ok=True)
    return {**keep, "HOME": str(s.root), "CODEX_HOME": str(s.home),
            "XDG_RUNTIME_DIR": str(s.root / "run"), "SHELLGATE_HOOK_FALLBACK": "deny"}


def under_admin(s: Setup, argv: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    full = etc_overlay_argv(s.root / "scratch", {"codex": s.etc}, argv)
    return subprocess.run(full, input=stdin, env=env(s), cwd=s.ws, capture_output=True,
                          text=True, timeout=60)  # fmt: skip


def hook(s: Setup, agent: str, command: str) -> subprocess.CompletedProcess[str]:
    event = {**EVENTS[agent], "cwd": str(s.ws), "session_id": "s1",
             "tool_input": {"command": command}}
    return under_admin(s, [sys.executable, "-m", "shellgate", "hook", agent], json.dumps(event))


@pytest.fixture
def admin(tmp_path: Path) -> Setup:
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no user + mount namespaces here")
    s = Setup(tmp_path)
    s.managed([("PreToolUse", "Bash", "m1", None), ("PermissionRequest", "Bash", "m1", None)])
    s.answer("PreToolUse", {"kind": "quiet"})
    return s


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_the_admins_pre_tool_use_hook_refuses_for_every_agent(admin: Setup, agent: str) -> None:
    admin.answer("PreToolUse", pre("deny", "managed hook says no"))
    done = hook(admin, agent, "pwd")
    assert done.returncode in (0, 2), done.stderr
    assert TOLD in done.stdout + done.stderr
    calls = admin.calls()
    assert [c["stdin"]["hook_event_name"] for c in calls] == ["PreToolUse"]
    assert calls[0]["stdin"]["tool_input"] == {"command": "pwd"}


def test_a_quiet_admin_hook_changes_nothing(admin: Setup) -> None:
    done = hook(admin, "claude-code", "pwd")
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow", out


def test_the_admins_permission_request_hook_answers_before_the_person(admin: Setup) -> None:
    """`touch` needs a person under Claude Code without ShellGate's sandbox; the admin's
    PermissionRequest hook answers instead (deny wins; its message reaches the model)."""
    admin.answer("PermissionRequest", perm("deny", "admin says not today"))
    done = hook(admin, "claude-code", "touch t.txt")
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and out["permissionDecisionReason"] == \
        "admin says not today"
    admin.answer("PermissionRequest", perm("allow"))
    done = hook(admin, "claude-code", "touch t.txt")
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow", out


def test_a_failing_admin_hook_asks_the_person(admin: Setup) -> None:
    """Codex would run it (fail open); ShellGate puts it to a person: no editor here and the
    fallback deny, so it is refused, saying why."""
    admin.answer("PreToolUse", {"kind": "raw", "exit": 1})
    done = hook(admin, "claude-code", "pwd")
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "hook exited with code 1" in out["permissionDecisionReason"]


def test_shellgate_run_refuses_what_the_admins_hook_refuses(admin: Setup) -> None:
    admin.answer("PreToolUse", pre("deny", "managed hook says no"))
    done = under_admin(admin, [sys.executable, "-m", "shellgate", "run", "--sandbox",
                               "danger-full-access", "--", "pwd"])  # fmt: skip
    assert done.returncode == 121, done.stderr
    assert TOLD in done.stderr
