"""Nothing ShellGate runs leaves files on the host outside what the command itself wrote.

bwrap makes a mount point on the host for each protected name (`.git`, `.codex`, `.agents`)
missing under a writable root; ShellGate removes them when the sandbox ends. A `shellgate
sandbox` killed by its caller (an agent's timeout sends SIGTERM) used to die before that and
leave the three empty folders behind: a folder holding them counts as a project root in Codex's
trust resolution. Each way in runs from a workspace under /tmp (pytest's `tmp_path`), with the
sandbox rewrite, a hook, an MCP `shell` call and a killed run; afterwards the workspace holds
only what the command wrote, and its parent and /tmp nothing new."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import SHELLGATE, text, write_rules

PROTECTED = (".git", ".codex", ".agents")


@pytest.fixture
def bare(tmp_path: Path, probe: object) -> Iterator[Path]:
    """A workspace under /tmp without .git, .codex or .agents; checks the host afterwards."""
    ws = tmp_path / "parent" / "ws"
    ws.mkdir(parents=True)
    (tmp_path / "runtime").mkdir(mode=0o700)
    tmp_before = {n for n in PROTECTED if os.path.lexists(f"/tmp/{n}")}
    yield ws
    assert not [n for n in PROTECTED if (ws / n).exists()], sorted(os.listdir(ws))
    assert os.listdir(ws.parent) == ["ws"]
    assert {n for n in PROTECTED if os.path.lexists(f"/tmp/{n}")} <= tmp_before


def _env(ws: Path) -> dict[str, str]:
    top = ws.parent.parent
    return {**os.environ, "XDG_RUNTIME_DIR": str(top / "runtime"),
            "XDG_CACHE_HOME": str(top / "cache"),
            "CODEX_HOME": str(top / "codex-home")}  # fmt: skip


def test_a_sandboxed_run(bare: Path) -> None:
    done = subprocess.run(
        [*SHELLGATE, "sandbox", "--mode", "workspace-write", "--", "touch", "made"],
        cwd=bare, env=_env(bare), capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(bare)) == ["made"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("how", [["sandbox", "--mode", "workspace-write"], ["run"]])
def test_a_sandboxed_run_killed_by_its_caller(
    bare: Path, sig: signal.Signals, how: list[str]
) -> None:
    write_rules(bare.parent.parent / "codex-home", "")
    proc = subprocess.Popen(
        [*SHELLGATE, *how, "--", "sh", "-c", "touch started; sleep 60"],
        cwd=bare, env=_env(bare), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 30
    while not (bare / "started").exists():  # the placeholders are mounted by now
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr
        time.sleep(0.05)
    assert {n for n in PROTECTED if (bare / n).is_dir()} == set(PROTECTED)
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == 128 + sig
    assert sorted(os.listdir(bare)) == ["started"]


def test_a_hook_with_the_sandbox_rewrite(bare: Path) -> None:
    home = bare.parent.parent / "codex-home"
    write_rules(home, "# touch: no rule; the heuristics let it run in the sandbox\n")
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(bare),
             "session_id": "s1", "tool_input": {"command": "touch made"}}  # fmt: skip
    answered = subprocess.run(
        [*SHELLGATE, "hook", "claude-code", "--sandbox", "workspace-write"],
        input=json.dumps(event), cwd=bare, env=_env(bare), capture_output=True, text=True,
        timeout=60)  # fmt: skip
    assert answered.returncode == 0, answered.stderr
    out = json.loads(answered.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow"
    command = out["updatedInput"]["command"]
    assert "sandbox" in command  # the rewrite, run as Claude Code runs it
    ran = subprocess.run(["bash", "-c", command], cwd=bare, env=_env(bare),
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert sorted(os.listdir(bare)) == ["made"]


async def test_an_mcp_shell_call(bare: Path) -> None:
    home = bare.parent.parent / "codex-home"
    write_rules(home, "")
    params = StdioServerParameters(
        command=SHELLGATE[0], cwd=str(bare), env=_env(bare),
        args=[*SHELLGATE[1:], "mcp", "--workspace", str(bare), "--codex-home", str(home),
              "--structured"])  # fmt: skip
    async with Client(params, mode="legacy") as client:
        ran = await client.call_tool("shell", {"command": "echo in > in.txt"})
        assert not ran.is_error, text(ran)
        assert ran.structured_content is not None
        assert ran.structured_content["sandboxed"] is True
    assert sorted(os.listdir(bare)) == ["in.txt"]
