"""Approvals in the editor: the real `shellgate serve` (its broker) answered by a pytest-lsp
client on `shellgate/approve`, and the real `shellgate mcp` asking it through the broker. When an
editor holds the folder, the client's elicitation is never used."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp_helpers import RUNTIME, Elicitations, mcp_client, open_editor, text, write_rules
from pytest_lsp import LanguageClient

from shellgate.agent.standin import StandIn

pytestmark = pytest.mark.timeout(180)

RULES = 'prefix_rule(pattern=["touch"], decision="prompt", justification="new files need a look")\n'


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "codex-home"
    write_rules(h, RULES)
    return h


async def test_shell_approvals_come_from_the_editor(
    editor: LanguageClient, workspace: Path, home: Path, probe: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(RUNTIME))
    answers = [{"choice": "approved"}, {"choice": "denied"},
               {"choice": "approved_execpolicy_amendment"}]  # fmt: skip
    asked = await open_editor(editor, workspace, home, answers)
    elicit = Elicitations([("accept", 0)] * 5)
    args = ["--approval-policy", "untrusted"]
    async with mcp_client(workspace, home, elicit=elicit, runtime=RUNTIME, args=args) as mcp:
        yes = await mcp.call_tool("shell", {"command": "touch yes.txt"})
        assert not yes.is_error, text(yes)
        assert (workspace / "yes.txt").exists()
        no = await mcp.call_tool("shell", {"command": "touch no.txt"})
        assert no.is_error and "was not run" in text(no)
        assert not (workspace / "no.txt").exists()
        # No rule matches `mkdir -p always` (untrusted asks): "Yes, and don't ask again for
        # commands that start with `mkdir -p always`" appends Codex's rule to default.rules, and
        # the same command no longer asks.
        for _ in range(2):
            ok = await mcp.call_tool("shell", {"command": "mkdir -p always"})
            assert not ok.is_error, text(ok)
        assert (workspace / "always").is_dir()
    assert len(asked) == 3 and elicit.asked == []
    assert asked[0]["title"].endswith("wants to run the following command")
    assert "touch yes.txt" in json.dumps(asked[0]["command"])
    assert "new files need a look" in asked[0]["reason"]
    rules = (home / "rules" / "default.rules").read_text()
    assert 'prefix_rule(pattern=["mkdir", "-p", "always"], decision="allow")' in rules


async def test_the_approve_tool_asks_the_editor(
    editor: LanguageClient, workspace: Path, home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(RUNTIME))
    asked = await open_editor(editor, workspace, home, [
        {"choice": "approved"}, {"choice": "abort", "message": "use a branch"}])  # fmt: skip
    async with mcp_client(workspace, home, runtime=RUNTIME) as mcp:
        tool_input = {"command": "touch x.txt", "description": "make a file"}
        allow = await mcp.call_tool("approve", {"tool_name": "Bash", "input": tool_input,
                                                "tool_use_id": "toolu_1"})  # fmt: skip
        assert len(allow.content) == 1 and allow.structured_content is None
        assert json.loads(text(allow)) == {"behavior": "allow", "updatedInput": tool_input}
        deny = await mcp.call_tool("approve", {"tool_name": "Bash", "input": tool_input})
        answer = json.loads(text(deny))
        assert answer["behavior"] == "deny" and "use a branch" in answer["message"]
    assert [a["agent"]["id"] for a in asked] == ["claude-code", "claude-code"]
    assert "touch x.txt" in json.dumps(asked[0]["command"])


async def test_the_reviewers_verdicts_reach_show_approvals(
    editor: LanguageClient, workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """approvals_reviewer = "auto_review": the MCP tool's question goes to the reviewer, not to
    the editor's dialog, and the editor's Show Approvals lists the verdict."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(RUNTIME))
    asked = await open_editor(editor, workspace, home, [{"choice": "denied"}])
    verdict = {"outcome": "allow", "risk_level": "low", "user_authorization": "high",
               "rationale": "a file in the workspace, as asked"}
    with StandIn([{"text": json.dumps(verdict)}]) as standin:
        (home / "config.toml").write_text(
            'approvals_reviewer = "auto_review"\nmodel = "stand-in"\nmodel_provider = "s"\n'
            f'[model_providers.s]\nbase_url = "{standin.url}"\nwire_api = "chat"\n')
        async with mcp_client(workspace, home, runtime=RUNTIME,
                              args=["--approval-policy", "on-request"]) as mcp:
            done = await mcp.call_tool("shell", {"command": "touch reviewed.txt"})
            assert not done.is_error, text(done)
    assert (workspace / "reviewed.txt").exists() and asked == []
    for _ in range(100):  # the verdict is sent on the side, never waited for
        history = await editor.protocol.send_request_async("shellgate/approvals", {})
        reviewed = [e for e in history.entries if e.state == "reviewed"]
        if reviewed:
            break
        await asyncio.sleep(0.05)
    (entry,) = reviewed
    assert entry.agent == "mcp" and entry.answer == "accept"
    assert entry.command[-1] == "touch reviewed.txt"
    assert entry.review.outcome == "allow" and entry.review.rationale == verdict["rationale"]
