"""The editor's History view reads the record: every decision, whoever made it, from the real
`shellgate serve` (pytest-lsp client); a decision a real hook process records afterwards is
pushed (`shellgate/historyChanged`) and then listed, with who answered and the deciding rule."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from lspsession import end
from shellgate.record.entry import Entry
from shellgate.record.sink import record

STATE = tempfile.mkdtemp(prefix="sg-history-view-")
HOME = Path(tempfile.mkdtemp(prefix="sg-history-home-"))
RUNTIME = tempfile.mkdtemp(prefix="sghv-", dir="/tmp")
ENV = {**os.environ, "XDG_STATE_HOME": STATE, "XDG_RUNTIME_DIR": RUNTIME,
       "HOME": str(HOME), "CODEX_HOME": str(HOME / ".codex")}  # fmt: skip
RULES = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm here")\n'


@pytest.fixture(autouse=True, scope="module")
def _earlier() -> None:
    (HOME / ".codex" / "rules").mkdir(parents=True, exist_ok=True)
    (HOME / ".codex" / "rules" / "default.rules").write_text(RULES)
    record(Entry("gemini", "ls -la", "/w", "approved", "rules"), {"XDG_STATE_HOME": STATE})
    record(Entry("claude-code", "git push", "/w", "denied", "person", asked=True),
           {"XDG_STATE_HOME": STATE})  # fmt: skip


def _pushed(client: LanguageClient) -> list[Any]:
    pushed: list[Any] = client.pushed  # type: ignore[attr-defined]
    return pushed


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "shellgate", "serve"], server_env=ENV))  # fmt: skip
async def client(lsp_client: LanguageClient) -> Any:
    lsp_client.pushed = []  # type: ignore[attr-defined]

    @lsp_client.feature("shellgate/historyChanged")
    def _changed(params: Any) -> None:
        _pushed(lsp_client).append(params)

    yield
    await end(lsp_client)


def _plain(value: Any) -> Any:
    """pygls hands custom results back as namedtuples: JSON data again."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@pytest.mark.asyncio
async def test_every_decision_then_a_hook_s_pushed(client: LanguageClient, tmp_path: Path) -> None:
    await client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                       root_uri=tmp_path.as_uri()))  # fmt: skip
    got = _plain(await client.protocol.send_request_async("shellgate/history", {}))
    rows = [(e["agentName"], e["text"], e["decision"], e["answerer"]) for e in got["entries"]]
    assert rows == [("Gemini CLI", "ls -la", "approved", "rules"),
                    ("Claude Code", "git push", "denied", "person")]  # fmt: skip
    _pushed(client).clear()
    event = {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_input": {"command": "rm -rf build"}, "cwd": str(tmp_path)}  # fmt: skip
    hook = subprocess.run([sys.executable, "-m", "shellgate", "hook", "claude-code"],
                          input=json.dumps(event), capture_output=True, text=True, env=ENV,
                          timeout=60)  # fmt: skip
    assert '"deny"' in hook.stdout, hook.stdout + hook.stderr
    async with asyncio.timeout(20):  # the server sees the record grow, and says so
        while not _pushed(client):
            await asyncio.sleep(0.05)
    got = _plain(await client.protocol.send_request_async("shellgate/history", {}))
    last = got["entries"][-1]
    assert (last["agentName"], last["text"], last["decision"], last["answerer"]) == (
        "Claude Code", "rm -rf build", "forbidden", "rules")
    assert last["rule"]["path"] == str(HOME / ".codex" / "rules" / "default.rules")
    assert last["rule"]["line"] == 1
