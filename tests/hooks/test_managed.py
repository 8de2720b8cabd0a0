"""`shellgate hook install AGENT --scope managed`, proved with the real CLIs offline: with no
user-level install, the admin's ShellGate hook governs (a forbidden command is blocked), and the
user's own settings do not turn it off. Scratch folders stand in for /etc/codex,
/etc/claude-code and /etc/gemini-cli in a private user + mount namespace (tests/etc_overlay.py):
the machine's /etc is never written."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from agents import (
    CODEX_PROVIDER,
    RULES,
    Home,
    bash,
    claude_turn,
    gemini_prepare,
    gemini_turn,
    run_turn,
)

import realtools
from etc_overlay import etc_overlay_argv
from realclients import tool_results

ETC = {"codex": "codex", "claude-code": "claude-code", "gemini": "gemini-cli"}


def etc_dirs(home: Home) -> dict[str, Path]:
    dirs = {name: home.root / "etc" / name for name in ETC.values()}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    return dirs


def managed_install(home: Home, agent: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """`shellgate hook install AGENT --scope managed` as root would run it, into the stand-ins."""
    command = [sys.executable, "-m", "shellgate", "hook", "install", agent, "--scope", "managed",
               *flags]  # fmt: skip
    argv = etc_overlay_argv(home.root / "install-scratch", etc_dirs(home), command)
    done = subprocess.run(argv, env=home.env(), cwd=home.ws, capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def test_install_writes_each_admin_file_and_uninstall_keeps_the_admins_own(home: Home) -> None:
    etc = etc_dirs(home)
    (etc["codex"] / "requirements.toml").write_text(
        'allowed_sandbox_modes = ["read-only", "workspace-write"]\n'
    )
    (etc["claude-code"] / "managed-settings.json").write_text('{"permissions": {"deny": []}}\n')
    for agent in ETC:
        out = managed_install(home, agent).stdout
        assert f"/etc/{ETC[agent]}/" in out
        again = managed_install(home, agent).stdout  # idempotent: nothing to change
        assert "already installed; nothing changed" in again
    req = tomllib.loads((etc["codex"] / "requirements.toml").read_text())
    assert req["allowed_sandbox_modes"] == ["read-only", "workspace-write"]
    [pre] = req["hooks"]["PreToolUse"]
    assert pre["matcher"] == "Bash" and "-I -m shellgate hook codex" in pre["hooks"][0]["command"]
    claude = json.loads((etc["claude-code"] / "managed-settings.json").read_text())
    assert claude["permissions"] == {"deny": []} and set(claude["hooks"]) == {
        "PreToolUse", "PermissionRequest"}  # fmt: skip
    gemini = json.loads((etc["gemini-cli"] / "settings.json").read_text())
    assert gemini["hooksConfig"] == {"enabled": True}
    assert (etc["gemini-cli"] / "policies" / "shellgate.toml").stat().st_mode & 0o777 == 0o644
    for agent in ETC:
        managed_install(home, agent, "--uninstall")
    assert (etc["codex"] / "requirements.toml").read_text() == (
        'allowed_sandbox_modes = ["read-only", "workspace-write"]\n'
    )
    assert json.loads((etc["claude-code"] / "managed-settings.json").read_text()) == {
        "permissions": {"deny": []}
    }
    assert not (etc["gemini-cli"] / "policies" / "shellgate.toml").exists()


@pytest.mark.parametrize(
    "original",
    [
        "hooks = { PreToolUse = [] }\n",  # ours cannot be added as [[hooks.PreToolUse]]
        '[rules]\nprefix_rules = [{ pattern = [{ token = "x" }], decision = "allow" }]\n',
    ],
)
def test_a_requirements_file_ours_cannot_fit_in_is_left_alone(home: Home, original: str) -> None:
    etc = etc_dirs(home)
    (etc["codex"] / "requirements.toml").write_text(original)
    command = [sys.executable, "-m", "shellgate", "hook", "install", "codex", "--scope", "managed"]
    done = subprocess.run(etc_overlay_argv(home.root / "s", etc, command), env=home.env(),
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1
    assert "/etc/codex/requirements.toml" in done.stderr and "nothing was written" in done.stderr
    assert (etc["codex"] / "requirements.toml").read_text() == original


ALLOW_BASH = {"permissions": {"allow": ["Bash"]}}
SECRET = "s3cr3t-value"


def deny_read_secret(home: Home) -> Path:
    """An admin's deny_read in requirements.toml, naming a file the user can read."""
    secret = home.home / "secret.txt"
    secret.write_text(SECRET + "\n")
    (etc_dirs(home)["codex"] / "requirements.toml").write_text(
        f'[permissions.filesystem]\ndeny_read = ["{home.home}/*.txt"]\n'
    )
    return secret


def claude_user_settings(home: Home, settings: dict[str, object]) -> None:
    path = home.home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def test_claude_code_obeys_the_managed_hook_and_disable_all_hooks_does_not_reach_it(
    home: Home,
) -> None:
    claude = realtools.claude()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    # The user lets Claude Code run any Bash command unasked, tries to switch hooks off, and
    # has none of their own.
    claude_user_settings(home, {**ALLOW_BASH, "disableAllHooks": True, "hooks": {}})
    managed_install(home, "claude-code", "--sandbox", "workspace-write")
    secret = deny_read_secret(home)
    script = [bash("rm -f victim"), bash("echo hi > made"), bash(f"cat {secret}"),
              {"text": "fin"}]  # fmt: skip
    result = claude_turn(home, claude, script, etc=etc_dirs(home))
    assert result["rc"] == 0, result["stderr"][-2000:]
    told = tool_results(result["requests"][-1])
    assert (home.ws / "victim").read_text() == "keep"
    assert "ShellGate" in told[0] and "keep the victim file" in told[0], told
    assert (home.ws / "made").read_text() == "hi\n"  # allowed commands still run
    # deny_read holds for Claude Code's commands: with it, nothing runs outside the sandbox
    assert SECRET not in told[2] and "Permission denied" in told[2], told


def test_claude_code_control_the_same_user_setting_does_turn_off_a_user_install(
    home: Home,
) -> None:
    claude = realtools.claude()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    home.install("claude-code")
    settings = json.loads((home.home / ".claude" / "settings.json").read_text())
    claude_user_settings(home, {**settings, **ALLOW_BASH, "disableAllHooks": True})
    result = claude_turn(home, claude, [bash("rm -f victim"), {"text": "fin"}],
                         etc=etc_dirs(home))  # fmt: skip
    assert result["rc"] == 0, result["stderr"][-2000:]
    assert not (home.ws / "victim").exists()  # what the managed install protects against


def gemini_user_settings(home: Home, extra: dict[str, object]) -> None:
    gemini_prepare(home)
    path = home.home / ".gemini" / "settings.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **extra}))


def test_gemini_obeys_the_system_hook_and_a_user_hooks_off_switch_does_not_reach_it(
    home: Home,
) -> None:
    gemini = realtools.gemini()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    gemini_user_settings(home, {"hooksConfig": {"enabled": False}, "hooks": {}})
    managed_install(home, "gemini", "--sandbox", "workspace-write")
    assert not (home.home / ".gemini" / "policies").exists()  # nothing at the user level
    secret = deny_read_secret(home)
    script = [bash("rm -f victim"), bash("echo hi > made"), bash(f"cat {secret}"),
              {"text": "fin"}]  # fmt: skip
    result = gemini_turn(home, gemini, script, etc=etc_dirs(home))
    assert result["rc"] == 0, result["stderr"][-3000:]
    told = tool_results(result["requests"][-1])
    assert (home.ws / "victim").read_text() == "keep"
    assert "Tool execution blocked: ShellGate" in told[0] and "keep the victim file" in told[0]
    assert (home.ws / "made").read_text() == "hi\n"
    assert SECRET not in told[2] and "Permission denied" in told[2], told


def test_gemini_documented_limit_a_user_can_name_the_hook_in_hooks_config_disabled(
    home: Home,
) -> None:
    """Gemini merges hooksConfig.disabled as a union across tiers: an admin cannot take a name
    back out (docs/hooks.md says so). Kept as a test so that the docs stay true."""
    gemini = realtools.gemini()
    home.rules('prefix_rule(pattern=["touch"], decision="forbidden")\n')
    gemini_user_settings(home, {"hooksConfig": {"disabled": ["shellgate"]}})
    managed_install(home, "gemini")
    result = gemini_turn(home, gemini, [bash("touch made"), {"text": "fin"}],
                         etc=etc_dirs(home))  # fmt: skip
    assert result["rc"] == 0, result["stderr"][-3000:]
    assert (home.ws / "made").exists()  # the forbidden command ran: the hook was switched off


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_codex_runs_the_managed_hook_without_a_trust_entry(home: Home, version: str) -> None:
    codex = str(realtools.codex(version))
    managed_install(home, "codex")
    assert not (home.codex_home / "hooks.json").exists()
    assert not (home.codex_home / "config.toml").exists()  # no trusted_hash anywhere
    config = ("model_provider=standin", f"model_providers.standin={CODEX_PROVIDER}",
              "model=stand-in", "check_for_update_on_startup=false", "analytics.enabled=false")
    # danger-full-access and never: nothing of Codex's own would stop a command here.
    argv = [codex, "exec", "--json", "--skip-git-repo-check", "-s", "danger-full-access",
            *(a for c in config for a in ("-c", c)), "-c", 'approval_policy="never"',
            "--disable", "plugins", "do the task"]  # fmt: skip
    ran = run_turn(home, [bash("touch made"), {"text": "fin"}], argv, home.env(NO_COLOR="1"),
                   etc=etc_dirs(home))  # fmt: skip
    assert (home.ws / "made").exists(), ran["stderr"][-2000:]
    # The hook answers for every command: one that cannot decide (a fallback setting it does
    # not know) blocks, so the managed hook ran, untrusted by any user entry, and was obeyed.
    result = run_turn(home, [bash("touch again"), {"text": "fin"}], argv,
                      home.env(NO_COLOR="1", SHELLGATE_HOOK_FALLBACK="sometimes"),
                      etc=etc_dirs(home))  # fmt: skip
    assert not (home.ws / "again").exists()
    assert "Command blocked by PreToolUse hook" in str(result["requests"])
    assert "must be ask or deny" in str(result["requests"])


def test_with_deny_read_a_hook_without_sandbox_still_confines_read_only(home: Home) -> None:
    """No `--sandbox` (danger-full-access): with deny_read, Codex's clamp makes it read-only,
    and even the command an allow rule covers runs in the sandbox."""
    home.rules('prefix_rule(pattern=["cat"], decision="allow")\n')
    secret = deny_read_secret(home)
    command = f"cat {secret}; touch made"
    event = {"session_id": "s1", "cwd": str(home.ws), "hook_event_name": "PreToolUse",
             "tool_name": "Bash", "tool_input": {"command": command}}  # fmt: skip
    hook = [sys.executable, "-m", "shellgate", "hook", "claude-code"]
    answer = subprocess.run(etc_overlay_argv(home.root / "s", etc_dirs(home), hook),
                            input=json.dumps(event), env=home.env(), cwd=home.ws,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    out = json.loads(answer.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow", out
    wrapped = out["updatedInput"]["command"]
    assert "shellgate sandbox --mode read-only" in wrapped  # the requirements' clamp
    ran = subprocess.run(etc_overlay_argv(home.root / "s", etc_dirs(home),
                                          ["/bin/sh", "-c", wrapped]),
                         env=home.env(), cwd=home.ws, capture_output=True, text=True,
                         timeout=60)  # fmt: skip
    assert SECRET not in ran.stdout and "Permission denied" in ran.stderr
    assert not (home.ws / "made").exists()


def test_doctor_finds_the_managed_hooks_live(home: Home) -> None:
    codex = str(realtools.codex())
    home.npm_global("claude", "gemini")
    for agent in ETC:
        managed_install(home, agent)
    doctor = [sys.executable, "-m", "shellgate", "hook", "doctor", *ETC, "--codex", codex]
    done = subprocess.run(etc_overlay_argv(home.root / "s", etc_dirs(home), doctor, net=True),
                          env=home.env(), cwd=home.ws, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    for agent in ETC:
        assert f"{agent}: live" in done.stdout
    assert "sandbox: bwrap" in done.stdout
