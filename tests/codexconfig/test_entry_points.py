"""Every entry point reads the admin's tier: explain, run, replay and the hooks, each run in a
private user + mount namespace where a scratch folder is `/etc/codex` (an overlay over /etc
whose upper layer is scratch: the machine's /etc is never written)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare")

MOUNT = (
    'mkdir -p "$S/upper" "$S/work" && mount -t overlay overlay '
    '-o lowerdir=/etc,upperdir="$S/upper",workdir="$S/work" /etc && mkdir -p /etc/codex && '
    'mount --bind "$SYS" /etc/codex && exec "$@"'
)
REQUIREMENTS = """\
allowed_approval_policies = ["untrusted", "on-request"]
allowed_sandbox_modes = ["read-only", "workspace-write"]
[rules]
prefix_rules = [
  { pattern = [{ token = "echo" }], decision = "forbidden", justification = "admin: no echo" },
]
"""
BROKEN = '[rules]\nprefix_rules = [{ pattern = [{ token = "echo" }], decision = "allow" }]\n'


@pytest.fixture
def tier(tmp_path: Path) -> Path:
    for d in ("sys/rules", "home/rules", "ws", "scratch", "cache", "run"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "sys" / "rules" / "admin.rules").write_text(
        'prefix_rule(pattern=["ls"], decision="forbidden", justification="admin: no ls")\n'
    )
    # the user's own rules allow what the admin forbids: the strictest wins
    (tmp_path / "home" / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["ls"], decision="allow")\n'
        'prefix_rule(pattern=["echo"], decision="allow")\n'
    )
    return tmp_path


def shellgate(tier: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ["PATH"], "HOME": str(tier / "home"), "CODEX_HOME": str(tier / "home"),
        "XDG_CACHE_HOME": str(tier / "cache"), "XDG_RUNTIME_DIR": str(tier / "run"),
        "S": str(tier / "scratch"), "SYS": str(tier / "sys"),
    }  # fmt: skip
    argv = ["unshare", "-rm", "sh", "-c", MOUNT, "sh", sys.executable, "-m", "shellgate", *args]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env,
                          cwd=tier / "ws", timeout=120)  # fmt: skip


def hook(tier: Path, agent: str, command: str, *flags: str) -> dict[str, object]:
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
             "tool_input": {"command": command}, "cwd": str(tier / "ws")}  # fmt: skip
    if agent == "gemini":
        event.update(hook_event_name="BeforeTool", tool_name="run_shell_command")
    done = shellgate(tier, "hook", agent, *flags, stdin=json.dumps(event))
    assert done.returncode == 0, done.stderr
    out: dict[str, object] = json.loads(done.stdout)
    return out


def test_explain_names_the_system_tier_and_the_requirements(tier: Path) -> None:
    (tier / "sys" / "requirements.toml").write_text(REQUIREMENTS)
    done = shellgate(tier, "explain", "--json", "--approval-policy", "never", "--", "ls")
    assert done.returncode == 0, done.stderr
    ex = json.loads(done.stdout)
    assert ex["requirement"] == {"type": "forbidden", "reason": "`ls` rejected: admin: no ls"}
    hits = ex["segments"][0]["matched_rules"]
    assert [(h["layer"], h["decision"]) for h in hits] == [("system", "forbidden"),
                                                          ("user", "allow")]  # fmt: skip
    assert [f["layer"] for f in ex["rules_files"]] == ["system", "user", "requirements"]
    # never is not allowed: Codex's fallback to the first allowed policy, with its warning
    assert ex["context"]["approval_policy"] == "untrusted"
    session = ex["context"]["session"]
    assert session["requested_approval_policy"] == "never"
    assert session["warnings"][0].startswith(
        "Configured value for `approval_policy` is disallowed by requirements; falling back to "
        "required value UnlessTrusted."
    )
    text = shellgate(tier, "explain", "--", "echo", "hi").stdout
    assert "[requirements] `echo` forbidden: admin: no echo" in text


def test_untrusted_in_a_config_file_stops_explain(tier: Path) -> None:
    (tier / "sys" / "config.toml").write_text('model = "x"\napproval_policy = "untrusted"\n')
    done = shellgate(tier, "explain", "--", "pwd")
    assert done.returncode == 1
    assert ('/etc/codex/config.toml:2:1: approval_policy = "untrusted" is no longer supported; '
            "remove this setting") in done.stderr  # fmt: skip
    # a system config value applies where the user's file is silent; the user's wins over it
    (tier / "sys" / "config.toml").write_text('approval_policy = "never"\n')
    ex = json.loads(shellgate(tier, "explain", "--json", "--", "pwd").stdout)
    assert ex["context"]["approval_policy"] == "never"
    (tier / "home" / "config.toml").write_text('approval_policy = "on-request"\n')
    ex = json.loads(shellgate(tier, "explain", "--json", "--", "pwd").stdout)
    assert ex["context"]["approval_policy"] == "on-request"


def test_broken_requirements_stop_every_entry_point(tier: Path) -> None:
    (tier / "sys" / "requirements.toml").write_text(BROKEN)
    message = ("/etc/codex/requirements.toml:2:51: invalid rules in requirements (set by "
               "/etc/codex/requirements.toml): rules prefix_rule at index 0 has decision "
               "'allow'")  # fmt: skip
    done = shellgate(tier, "explain", "--", "pwd")
    assert done.returncode == 1 and message in done.stderr
    assert "Codex refuses to start with these requirements" in done.stderr
    done = shellgate(tier, "run", "--", "touch", "made")
    assert done.returncode == 120 and message in done.stderr
    assert not (tier / "ws" / "made").exists()
    for agent in ("claude-code", "gemini"):
        out = json.dumps(hook(tier, agent, "pwd"))
        assert "Codex would not start" in out and "has decision 'allow'" in out, out
        assert '"allow"' not in out.replace("decision 'allow'", "")


def test_hooks_obey_the_admin_and_its_clamp(tier: Path) -> None:
    (tier / "sys" / "requirements.toml").write_text(REQUIREMENTS)
    spec = hook(tier, "claude-code", "ls")["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny"  # type: ignore[index]
    assert "admin: no ls" in spec["permissionDecisionReason"]  # type: ignore[index]
    gem = hook(tier, "gemini", "echo hi")
    assert gem["decision"] == "deny" and "admin: no echo" in str(gem["reason"])
    # Claude Code's commands would run unsandboxed: the admin allows read-only and
    # workspace-write only, so an allowed command runs in ShellGate's read-only sandbox
    spec = hook(tier, "claude-code", "git status")["hookSpecificOutput"]
    assert spec["permissionDecision"] == "allow"  # type: ignore[index]
    assert "sandbox --mode read-only" in spec["updatedInput"]["command"]  # type: ignore[index]
    assert "falling back to required value" in spec["permissionDecisionReason"]  # type: ignore[index]
