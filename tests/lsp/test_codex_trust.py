"""The editor runs with the workspace's rules; it says when Codex itself would not read them
(its config.toml does not trust the project)."""

from __future__ import annotations

from lsprotocol import types as T
from pytest_lsp import LanguageClient

from .conftest import env_of, open_doc
from .test_features import plain

RULE = 'prefix_rule(pattern = ["make"], decision = "prompt")\n'


async def test_status_hover_and_explain_say_what_codex_does(client: LanguageClient) -> None:
    env = env_of(client)
    path = env.project / ".codex" / "rules" / "p.rules"
    path.write_text(RULE)
    uri = open_doc(client, path, RULE)

    status = plain(await client.protocol.send_request_async("shellgate/status", {}))
    (note,) = status["codexTrust"]
    assert note["root"] == str(env.project) and note["codexLoads"] is False
    assert note["message"].startswith("Codex ignores this project's rules: the project is not")
    assert status["rules"] == 1  # the editor still runs with them (VS Code's trust is the gate)

    hover = await client.text_document_hover_async(
        T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(0, 26))
    )
    assert hover is not None
    assert "- Codex itself: Codex ignores this project's rules" in hover.contents.value  # type: ignore[union-attr]
    explained = plain(
        await client.protocol.send_request_async("shellgate/explain", {"command": ["make"]})
    )
    assert explained["decision"] == "prompt"
    assert [w["code"] for w in explained["warnings"]] == ["codex-trust"]

    # Once Codex trusts the project, nothing more is said.
    (env.home / "config.toml").write_text(f'[projects."{env.project}"]\ntrust_level = "trusted"\n')
    status = plain(await client.protocol.send_request_async("shellgate/status", {}))
    assert status["codexTrust"][0]["codexLoads"] is True
    explained = plain(
        await client.protocol.send_request_async("shellgate/explain", {"command": ["make"]})
    )
    assert explained.get("warnings", []) == []


async def test_status_says_when_auto_review_answers(client: LanguageClient) -> None:
    """approvals_reviewer = "auto_review" in Codex's config: the status bar names the model."""
    env = env_of(client)
    status = plain(await client.protocol.send_request_async("shellgate/status", {}))
    assert status["autoReview"] is None
    (env.home / "config.toml").write_text(
        'approvals_reviewer = "auto_review"\nmodel = "gpt-5.5"\n')
    status = plain(await client.protocol.send_request_async("shellgate/status", {}))
    assert status["autoReview"] == {"model": "gpt-5.5", "provider": "openai",
                                    "base_url": "https://api.openai.com/v1",
                                    "wire_api": "responses", "timeout_ms": 90000}
