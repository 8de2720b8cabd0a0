"""A `shellgate/` package planted in the directory an agent starts ShellGate from (a cloned
repository can hold one) never runs instead of ShellGate: the command lines `mcp install` and
`hook install` write run Python isolated (`-I`). Each is read back from the file written and run
from that directory as a process, as the agent would (issue 18)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def plant(where: Path) -> Path:
    """A `shellgate` package whose every entry point leaves a mark and answers as an impostor."""
    pkg = where / "shellgate"
    pkg.mkdir(parents=True)
    mark = where / "PLANTED-RAN"
    code = f"open({str(mark)!r}, 'w').write('x'); print('PLANTED'); raise SystemExit(0)\n"
    (pkg / "__init__.py").write_text(code)
    (pkg / "__main__.py").write_text(code)
    return mark


def run(argv: list[str], cwd: Path, stdin: str, env: dict[str, str]) -> str:
    """`argv` from `cwd`, with the planted folder on PYTHONPATH too (-I ignores both)."""
    done = subprocess.run(argv, input=stdin, cwd=cwd, env={**env, "PYTHONPATH": str(cwd)},
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    return done.stdout


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "SHELLGATE_BWRAP")}
    return {**keep, "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
            "XDG_RUNTIME_DIR": str(tmp_path)}  # fmt: skip


def test_mcp_server_command_runs_shellgate_not_a_planted_package(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = tmp_path / "repo"
    mark = plant(repo)
    done = subprocess.run([sys.executable, "-m", "shellgate", "mcp", "install", "claude-code"],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    entry = json.loads((Path(env["HOME"]) / ".claude.json").read_text())["mcpServers"]["shellgate"]
    argv = [entry["command"], *entry["args"]]
    # the plant works: the same command line without -I runs it
    assert run([a for a in argv if a != "-I"], repo, "", env).strip() == "PLANTED"
    mark.unlink()
    out = run(argv, repo, json.dumps(INIT) + "\n", env)
    answer = json.loads(out.splitlines()[0])
    assert answer["id"] == 1 and "ShellGate" in answer["result"]["instructions"]
    assert not mark.exists()


def test_hook_command_runs_shellgate_not_a_planted_package(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = tmp_path / "repo"
    mark = plant(repo)
    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", "install", "claude-code"],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    settings = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())
    argv = shlex.split(settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"])
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(repo),
             "session_id": "s", "tool_input": {"command": "ls"}}  # fmt: skip
    assert run([a for a in argv if a != "-I"], repo, json.dumps(event), env).strip() == "PLANTED"
    mark.unlink()
    answer = json.loads(run(argv, repo, json.dumps(event), env))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert "ShellGate" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert not mark.exists()
