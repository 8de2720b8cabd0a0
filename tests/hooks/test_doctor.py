"""`shellgate hook doctor`: a settings file that does not parse is named (file, line, column),
never a traceback; an agent that is not installed is said to be so, beside the state of its
hook, and one installed where npm puts it (not on PATH) is found."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from agents import Home

import realtools
from shellgate.hooks import agent_cli


def doctor(home: Home, *agents: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shellgate", "hook", "doctor", *agents],
                          env=home.env(), cwd=home.ws, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def _not_on_this_machine(home: Home, *agents: str) -> None:
    for agent in agents:
        if (found := agent_cli.find(agent, home.env(), home.ws)) is not None:
            pytest.skip(f"{found} is installed on this machine: cannot show it missing")


def test_a_typo_in_claude_settings_is_named_not_raised(home: Home) -> None:
    settings = home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions":{"allow":["Bash(ls:*)",]}}')
    done = doctor(home, "claude-code")
    assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
    assert f"{settings}:1:39: not valid JSON" in done.stdout, done.stdout


def test_non_utf8_codex_hooks_is_named_not_raised(home: Home) -> None:
    (home.codex_home / "hooks.json").write_bytes(b'{"hooks": {\n  "PreToolUse": "\xff"}}')
    done = doctor(home, "codex")
    assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
    assert f"{home.codex_home / 'hooks.json'}:2:18: not UTF-8 (byte 0xff)" in done.stdout


def test_status_and_doctor_name_the_same_broken_file(home: Home) -> None:
    settings = home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": [,]}')
    status = subprocess.run([sys.executable, "-m", "shellgate", "hook", "status"],
                            env=home.env(), cwd=home.ws, capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    assert f"{settings}:1:12: not valid JSON" in status.stdout
    assert f"{settings}:1:12: not valid JSON" in doctor(home, "claude-code").stdout


def test_a_hook_written_for_agents_not_installed_is_not_live(home: Home) -> None:
    _not_on_this_machine(home, "claude-code", "copilot", "vscode", "codex")
    home.install("claude-code")
    home.install("copilot")
    home.install("codex")
    done = doctor(home, "claude-code", "copilot", "codex")
    assert done.returncode == 1 and "live" not in done.stdout.replace("NOT live", "")
    out = done.stdout
    assert "Claude Code is not installed (no `claude` on PATH" in out, out
    assert f"ShellGate's hook is written ({home.home / '.claude' / 'settings.json'}) and " \
        "answers: it runs once Claude Code is installed" in out  # fmt: skip
    assert "Copilot CLI is not installed" in out and "VS Code is not installed" in out
    assert "Codex is not installed" in out
    assert f"ShellGate's hook is written ({home.codex_home / 'hooks.json'})" in out


@realtools.needs("claude", "gemini")
def test_clis_installed_by_npm_outside_path_are_found(home: Home) -> None:
    _not_on_this_machine(home, "gemini")
    home.install("claude-code")
    home.install("gemini")
    home.npm_global("claude")
    done = doctor(home, "claude-code", "gemini")
    assert "claude-code: live" in done.stdout, done.stdout
    assert "gemini: NOT live" in done.stdout and "Gemini CLI is not installed" in done.stdout
    home.npm_global("gemini")
    done = doctor(home, "claude-code", "gemini")
    assert done.returncode == 0 and "gemini: live" in done.stdout, done.stdout


def test_npmrc_prefix_and_project_local_installs(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    prefix_bin = tmp_path / "npm-prefix" / "bin"
    local_bin = project / "node_modules" / ".bin"
    for folder in (home, prefix_bin, local_bin):
        folder.mkdir(parents=True)
    (home / ".npmrc").write_text(f"fund=false\nprefix = {tmp_path / 'npm-prefix'}\n")
    env = {"HOME": str(home), "PATH": ""}
    for folder, program in ((prefix_bin, "gemini"), (local_bin, "copilot")):
        (folder / program).write_text("#!/bin/sh\n")
        assert agent_cli.find(program, env, project) is None  # not executable: not a program
        (folder / program).chmod(0o755)
    assert agent_cli.find("gemini", env, project) == prefix_bin / "gemini"
    assert agent_cli.find("copilot", env, project) == local_bin / "copilot"
