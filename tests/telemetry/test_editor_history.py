"""The editor's "Show Approvals" reads the record: questions answered before the language
server started (another editor session, a hook's answer) are listed after a restart, by the
real `shellgate serve` driven by a pytest-lsp client."""

from __future__ import annotations

import os
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

STATE = tempfile.mkdtemp(prefix="sg-history-")
RUNTIME = tempfile.mkdtemp(prefix="sgh-", dir="/tmp")
ENV = {**os.environ, "XDG_STATE_HOME": STATE, "XDG_RUNTIME_DIR": RUNTIME}


@pytest.fixture(autouse=True, scope="module")
def _earlier() -> None:
    """Written before the server starts: what an earlier session answered."""
    record(Entry("claude-code", "git push origin main", "/w", "approved_for_session", "person",
                 session_id="s-9", asked=True, reason="publishing needs a human",
                 rule={"pattern": "git push", "decision": "prompt"}),
           {"XDG_STATE_HOME": STATE})  # fmt: skip
    record(Entry("gemini", "ls", "/w", "approved", "rules"), {"XDG_STATE_HOME": STATE})


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "shellgate", "serve"], server_env=ENV))  # fmt: skip
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await end(lsp_client)


@pytest.mark.asyncio
async def test_show_approvals_lists_what_was_answered_before(client: LanguageClient,
                                                             tmp_path: Path) -> None:  # fmt: skip
    await client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                       root_uri=tmp_path.as_uri()))  # fmt: skip
    history = await client.protocol.send_request_async("shellgate/approvals", {})
    entries = [e._asdict() if hasattr(e, "_asdict") else e for e in history.entries]
    assert len(entries) == 1  # a question put to a person; the rules' own yes is not one
    e = entries[0]
    assert (e["agentName"], e["command"], e["answer"], e["decision"]) == (
        "Claude Code", ["git push origin main"], "acceptForSession", "prompt")
    assert e["sessionId"] == "s-9" and e["state"] == "answered"
