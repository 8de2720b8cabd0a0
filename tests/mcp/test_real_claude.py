"""The real Claude Code (`claude -p`) as an MCP client of `shellgate mcp`, configured by
`shellgate mcp install claude-code`, against a stand-in Messages API: the model's call of
`mcp__shellgate__shell` runs through ShellGate and its output comes back; its own Bash
permission prompt goes to `mcp__shellgate__approve` (`--permission-prompt-tool`), which with no
editor open denies it, with the reason."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import RUNTIME, open_editor
from pytest_lsp import LanguageClient

import realtools
from realclients import dump, home_dir, run_client, tool_results

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def scratch() -> Iterator[Path]:
    yield from home_dir()


def _tool_results(requests: list[dict[str, Any]]) -> list[str]:
    """Every tool_result the model was sent, as text."""
    return [t for r in requests if r["kind"] == "main" for t in tool_results(r["body"])]


def _claude_command(claude: Path, ws: Path) -> str:
    return (
        f'cd "{ws}" && ANTHROPIC_API_KEY=dummy ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" '
        "DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 "
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "
        f"timeout 120 {claude} -p 'run it' --output-format stream-json --verbose "
        "--permission-prompt-tool mcp__shellgate__approve"
    )


def _install(home: Path, env: dict[str, str]) -> None:
    installed = subprocess.run(
        [sys.executable, "-m", "shellgate", "mcp", "install", "claude-code"],
        capture_output=True, text=True, check=True, env={**os.environ, **env})  # fmt: skip
    assert "mcp__shellgate__shell" in installed.stdout


@realtools.needs("claude")
async def test_claude_code_permission_prompt_answered_in_the_editor(
    editor: LanguageClient, scratch: Path
) -> None:
    """`claude -p`'s Bash permission prompt, routed to the approve tool, answered in the editor:
    yes runs the command, no refuses it with the person's words."""
    claude = realtools.claude()
    home, ws = scratch / "home", scratch / "ws"
    home.mkdir()
    ws.mkdir()
    env = {"HOME": str(home), "CODEX_HOME": str(scratch / "codex-home"),
           "XDG_RUNTIME_DIR": str(RUNTIME)}  # fmt: skip
    _install(home, env)
    asked = await open_editor(editor, ws, scratch / "codex-home", [
        {"choice": "approved"}, {"choice": "abort", "message": "not that file"}])  # fmt: skip
    script = [
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch yes.txt"}}]},
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch no.txt"}}]},
        {"text": "done"},
    ]
    rc, requests = await asyncio.to_thread(
        run_client, scratch / "run", script, _claude_command(claude, ws), env)
    assert rc == 0, dump(scratch / "run")
    assert len(asked) == 2 and all(a["agent"]["id"] == "claude-code" for a in asked)
    assert (ws / "yes.txt").exists() and not (ws / "no.txt").exists()
    assert any("not that file" in r for r in _tool_results(requests))


def test_claude_code_shell_and_permission_prompt(scratch: Path, probe: object) -> None:
    claude = realtools.claude()
    home, ws = scratch / "home", scratch / "ws"
    home.mkdir()
    ws.mkdir()
    env = {"HOME": str(home), "CODEX_HOME": str(scratch / "codex-home")}
    _install(home, env)
    script = [
        {"tool_calls": [{"name": "mcp__shellgate__shell",
                         "arguments": {"command": "echo via-claude > out.txt; cat out.txt"}}]},
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch bash-ran.txt",
                                                       "description": "make a file"}}]},
        {"text": "done"},
    ]  # fmt: skip
    rc, requests = run_client(scratch / "run", script, _claude_command(claude, ws), env)
    out = scratch / "run"
    assert rc == 0, dump(out)
    results = _tool_results(requests)
    assert any("via-claude" in r and "Exit code: 0" in r for r in results), dump(out)
    assert (ws / "out.txt").read_text() == "via-claude\n"
    denied = [r for r in results if "no ShellGate editor is open" in r]
    assert denied, results
    assert not (ws / "bash-ran.txt").exists()
