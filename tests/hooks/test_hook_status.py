"""`shellgate hook status --json`: which agents have ShellGate's hook, from their files (what the
VS Code extension's "Govern Agents" command and its status bar warning show), and the command
`hook install` writes when ShellGate is imported from a folder the interpreter does not know (the
extension's bundled libraries)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from agents import Home


def status(home: Home) -> dict[str, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", "hook", "status", "--json"],
        env=home.env(), cwd=home.ws, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {a["id"]: a for a in json.loads(done.stdout)["agents"]}


def test_status_follows_installs_and_says_what_an_install_writes(home: Home) -> None:
    before = status(home)
    assert list(before) == ["codex", "claude-code", "gemini", "copilot-cli", "vscode-agent"]
    assert not any(a["installed"] for a in before.values())
    copilot_file = str(home.home / ".copilot" / "hooks" / "shellgate.json")
    assert before["vscode-agent"]["writes"] == [copilot_file]
    assert before["vscode-agent"]["install"] == ["hook", "install", "copilot"]
    assert before["gemini"]["writes"] == [
        str(home.home / ".gemini" / "settings.json"),
        str(home.home / ".gemini" / "policies" / "shellgate.toml"),
    ]
    assert before["codex"]["writes"] == [
        str(home.codex_home / "hooks.json"), str(home.codex_home / "config.toml")
    ]

    home.install("copilot")
    home.install("claude-code")
    after = status(home)
    for agent in ("copilot-cli", "vscode-agent"):  # one file serves both
        assert after[agent]["installed"] and after[agent]["file"] == copilot_file
        assert "shellgate hook copilot" in after[agent]["command"]
        assert after[agent]["problem"] is None
    assert after["claude-code"]["installed"] and not after["codex"]["installed"]

    # Gemini's hook without its policy: installed, but it never runs.
    home.install("gemini")
    (home.home / ".gemini" / "policies" / "shellgate.toml").unlink()
    assert "shellgate.toml is missing" in status(home)["gemini"]["problem"]


def test_a_hook_whose_interpreter_is_gone_is_reported(home: Home) -> None:
    path = home.home / ".copilot" / "hooks" / "shellgate.json"
    path.parent.mkdir(parents=True)
    gone = home.root / "old-python" / "bin" / "python3"
    entry = {"type": "command", "bash": f"{gone} -I -m shellgate hook copilot", "timeoutSec": 330}
    path.write_text(json.dumps({"version": 1, "hooks": {"PreToolUse": [entry]}}))
    problem = status(home)["vscode-agent"]["problem"]
    assert problem == f"{gone} is gone (reinstall the hook)"


def test_install_from_bundled_libraries_names_them(home: Home, tmp_path: Path) -> None:
    """The extension runs `hook install` with ShellGate on sys.path only by its launcher: an
    isolated `-I -m shellgate` would not find it, and the hook would exit 1 (VS Code: run it)."""
    import shellgate

    libs = tmp_path / "libs"
    shutil.copytree(Path(shellgate.__file__).parent, libs / "shellgate")
    launcher = tmp_path / "launch.py"
    launcher.write_text(
        f"import sys; sys.path.insert(0, {str(libs)!r})\n"
        "from shellgate.cli import main\nraise SystemExit(main(sys.argv[1:]))\n"
    )
    env = home.env()
    env.pop("PYTHONPATH", None)
    # The interpreter must not find ShellGate by itself: one with no site-packages of ours.
    bare = shutil.which("python3", path="/usr/bin") or sys.executable
    probe = subprocess.run([bare, "-I", "-c", "import shellgate"], capture_output=True)
    done = subprocess.run(
        [bare, "-I", str(launcher), "hook", "install", "copilot"],
        env=env, cwd=home.ws, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    hook = json.loads((home.home / ".copilot" / "hooks" / "shellgate.json").read_text())
    command = hook["hooks"]["PreToolUse"][0]["bash"]
    if probe.returncode == 0:  # this python3 has a ShellGate of its own: the isolated form
        assert " -I -m shellgate hook copilot" in command
        return
    assert command.startswith(f"/usr/bin/env PYTHONPATH={libs.resolve()} {bare} -s -P -m shellgate")
    # The hook it wrote answers (the dependencies come from this test's environment, as the
    # bundle would bring its own).
    deps = os.pathsep.join(p for p in sys.path if p.endswith("site-packages"))
    event = {
        "hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(home.ws),
        "tool_name": "run_in_terminal", "tool_input": {"command": "ls"}, "tool_use_id": "t",
    }  # fmt: skip
    run = subprocess.run(
        ["/bin/sh", "-c", command.replace(f"PYTHONPATH={libs.resolve()}",
                                          f"PYTHONPATH={libs.resolve()}{os.pathsep}{deps}")],
        input=json.dumps(event), env=env, cwd=home.ws, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
