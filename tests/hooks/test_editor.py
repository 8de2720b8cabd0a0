"""A command that needs approval reaches the editor: the real `shellgate serve` (its broker
endpoint) with a pytest-lsp client answering `shellgate/approve`, and the real agent CLI whose
ShellGate hook asks it. Yes runs the command, no does not (the model reads the user's words),
don't-ask-again appends Codex's amendment and the next identical command runs unasked."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
import pytest_lsp
from agents import (
    Home,
    bash,
    claude_turn,
    codex_exec,
    copilot_turn,
    gemini_prepare,
    gemini_turn,
    run_turn,
)
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

import realtools
from realclients import tool_results

# Short (a Unix socket path holds 107 bytes): the server's and the hooks' runtime folder.
RUNTIME = tempfile.mkdtemp(prefix="sgh-", dir="/tmp")
SERVER = [sys.executable, "-m", "shellgate", "serve"]
ENV = {**os.environ, "XDG_RUNTIME_DIR": RUNTIME}


@pytest.fixture(scope="module", autouse=True)
def _runtime() -> Iterator[None]:
    yield
    shutil.rmtree(RUNTIME, ignore_errors=True)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await asyncio.wait_for(lsp_client.shutdown_session(), 20)


async def editor(client: LanguageClient, home: Home, answers: list[dict[str, str]]) -> list[Any]:
    """Serve `home.ws` and answer the dialogs in turn; the list of what was asked."""
    asked: list[Any] = []
    script = iter(answers)

    @client.feature("shellgate/approve")
    async def approve(params: Any) -> dict[str, str]:
        asked.append(params)
        answer = dict(next(script))
        await asyncio.sleep(float(answer.pop("delay", 0)))  # a dialog left open a while
        return answer

    await client.initialize_session(
        T.InitializeParams(
            capabilities=T.ClientCapabilities(experimental={"shellgate": {"approve": True}}),
            workspace_folders=[T.WorkspaceFolder(home.ws.as_uri(), "ws")],
            initialization_options={"codexHome": str(home.codex_home)},
        )
    )
    from shellgate.broker.discovery import find_server

    os.environ["XDG_RUNTIME_DIR"] = RUNTIME
    for _ in range(200):  # the endpoint starts on `initialized`
        if find_server(str(home.ws)) is not None:
            return asked
        await asyncio.sleep(0.05)
    raise AssertionError("the language server never registered its broker")


ANSWERS = [
    {"choice": "approved"},
    {"choice": "abort", "message": "not that one"},
    {"choice": "approved_execpolicy_amendment"},
]
SCRIPT = [
    bash("touch yes"),
    bash("touch no"),
    bash("touch again"),
    bash("touch again twice"),
    {"text": "fin"},
]


def check(home: Home, asked: list[Any], told: list[str]) -> None:
    assert len(told) == 4, told
    assert (home.ws / "yes").exists()
    assert not (home.ws / "no").exists() and "not that one" in told[1]
    assert (home.ws / "again").exists() and (home.ws / "twice").exists()
    rules = (home.codex_home / "rules" / "default.rules").read_text()
    assert 'prefix_rule(pattern=["touch", "again"], decision="allow")' in rules
    assert len(asked) == 3  # the fourth ran under the new rule, unasked


@pytest.mark.asyncio
async def test_claude_code_asks_the_editor(client: LanguageClient, home: Home) -> None:
    claude = realtools.claude()
    home.rules("# touch is not known safe: under untrusted, Codex asks\n")
    home.install("claude-code", "--approval-policy", "untrusted")
    asked = await editor(client, home, ANSWERS)
    result = await asyncio.to_thread(claude_turn, home, claude, SCRIPT, XDG_RUNTIME_DIR=RUNTIME)
    check(home, asked, tool_results(result["requests"][-1]))
    assert "Claude Code" in str(asked[0])  # the dialog names the agent


@pytest.mark.asyncio
async def test_gemini_asks_the_editor(client: LanguageClient, home: Home) -> None:
    gemini = realtools.gemini()
    home.rules("# touch is not known safe: under untrusted, Codex asks\n")
    gemini_prepare(home)
    home.install("gemini", "--approval-policy", "untrusted")
    asked = await editor(client, home, ANSWERS)
    result = await asyncio.to_thread(gemini_turn, home, gemini, SCRIPT, XDG_RUNTIME_DIR=RUNTIME)
    check(home, asked, tool_results(result["requests"][-1]))
    assert "Gemini CLI" in str(asked[0])


@pytest.mark.asyncio
async def test_codex_hands_its_approvals_to_the_editor_and_blocks_what_its_split_hides(
    client: LanguageClient, home: Home
) -> None:
    codex = str(realtools.codex())
    home.rules('prefix_rule(pattern=["touch"], decision="prompt", justification="look first")\n')
    home.install("codex")
    asked = await editor(client, home, ANSWERS[:2])
    argv = codex_exec(codex, "--approve-for-me")
    script = [
        bash(c)
        for c in ("touch yes", "touch no", "timeout 5 touch hid", "coproc touch cop")
    ] + [{"text": "fin"}]
    env = home.env(NO_COLOR="1", XDG_RUNTIME_DIR=RUNTIME)
    result = await asyncio.to_thread(run_turn, home, script, argv, env)
    told = str(result["requests"][-1])
    assert (home.ws / "yes").exists()
    assert not (home.ws / "no").exists() and "not that one" in told
    assert not (home.ws / "hid").exists()
    assert (
        "Command blocked by PreToolUse hook: ShellGate: bash runs `touch hid` (through `timeout`)"
        in told
    )
    assert not (home.ws / "cop").exists()
    assert "ShellGate: bash runs `touch cop`, which Codex's rules do not see" in told
    assert len(asked) == 2 and "Codex" in str(asked[0])


@pytest.mark.asyncio
async def test_copilot_cli_asks_the_editor(client: LanguageClient, home: Home) -> None:
    copilot = realtools.copilot()
    home.rules("# touch is not known safe: under untrusted, Codex asks\n")
    home.install("copilot", "--approval-policy", "untrusted")
    asked = await editor(client, home, ANSWERS)
    result = await asyncio.to_thread(copilot_turn, home, copilot, SCRIPT, XDG_RUNTIME_DIR=RUNTIME)
    check(home, asked, tool_results(result["requests"][-1]))
    assert "Copilot CLI" in str(asked[0])


@pytest.mark.asyncio
async def test_copilot_hook_past_its_deadline_says_no(client: LanguageClient, home: Home) -> None:
    """The dialog left open past the hook's own deadline: the hook answers no, with the
    reason, before Copilot's timeout (past which Copilot would run the command)."""
    copilot = realtools.copilot()
    home.rules('prefix_rule(pattern=["touch"], decision="prompt", justification="look first")\n')
    home.install("copilot", "--deadline", "3")
    hook = json.loads((home.home / ".copilot" / "hooks" / "shellgate.json").read_text())
    assert hook["hooks"]["PreToolUse"][0]["timeoutSec"] == 330
    asked = await editor(client, home, [{"choice": "approved", "delay": "20"}])
    script = [bash("touch late"), {"text": "fin"}]
    result = await asyncio.to_thread(copilot_turn, home, copilot, script, XDG_RUNTIME_DIR=RUNTIME)
    told = tool_results(result["requests"][-1])
    assert not (home.ws / "late").exists()
    assert len(asked) == 1 and len(told) == 1, told
    assert "no decision within 3 s" in told[0], told
