"""Rule coverage in the editor, driven through the real `shellgate serve` process by pytest-lsp
under real VS Code's and Neovim's client capabilities: the code lens on each rule, and the
notice when a saved edit changes past decisions."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import LanguageClient

from lspsession import end

from .conftest import CONFIG, PROFILES, Env, env_of, initialize, open_doc

NOW = int(time.time())
HISTORY = "".join(f"#{NOW - 2 * 86400}\n{c}\n" for c in (
    "git status", "git status", "git status --short", "git push origin main", "rm -rf build",
    "npm test", "npm test",
))  # fmt: skip
RULES = """\
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["rm"], decision="forbidden")
prefix_rule(pattern=["terraform"], decision="forbidden")
"""


@pytest_lsp.fixture(config=CONFIG, params=PROFILES)
async def client(lsp_client: LanguageClient, request: Any, tmp_path: Path) -> Any:
    env = Env(tmp_path, request.param)
    lsp_client.env = env  # type: ignore[attr-defined]
    lsp_client.changed = []  # type: ignore[attr-defined]
    history = tmp_path / ".bash_history"
    history.write_text(HISTORY)
    (env.project / ".codex" / "rules" / "r.rules").write_text(RULES)

    @lsp_client.feature("shellgate/pastDecisionsChanged")
    def _changed(params: Any) -> None:
        lsp_client.changed.append(params)  # type: ignore[attr-defined]

    await initialize(lsp_client, env, replay={"sources": [f"bash:{history}"]})
    yield
    await end(lsp_client)


async def lens_titles(client: LanguageClient, uri: str) -> dict[int, T.Command]:
    lenses = await client.text_document_code_lens_async(
        T.CodeLensParams(T.TextDocumentIdentifier(uri)))
    return {c.range.start.line: c.command for c in lenses or [] if c.command
            and c.command.command == "shellgate.showPastCommands"}  # fmt: skip


async def test_each_rule_shows_its_past_matches(client: LanguageClient) -> None:
    path = env_of(client).project / ".codex" / "rules" / "r.rules"
    uri = open_doc(client, path, RULES)
    lenses = await lens_titles(client, uri)
    assert lenses[0].title == "matched 3 past commands · last 2 days ago"
    assert list(lenses[0].arguments or ()) == [
        {"rule": "r.rules:1", "commands": ["git status", "git status --short"]}]
    assert lenses[1].title == "matched 1 past command · last 2 days ago"
    assert lenses[2].title == "never matched"


async def test_a_saved_edit_that_changes_past_decisions_says_so(client: LanguageClient) -> None:
    env = env_of(client)
    path = env.project / ".codex" / "rules" / "r.rules"
    uri = open_doc(client, path, RULES)
    assert (await lens_titles(client, uri))[2].title == "never matched"  # history is read
    # The edit: rm asks instead of being refused, git push is refused; saved to disk.
    new = RULES.replace('["rm"], decision="forbidden"', '["rm"], decision="prompt"') \
        + 'prefix_rule(pattern=["git", "push"], decision="forbidden")\n'
    path.write_text(new)
    env.versions[uri] += 1
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(env.versions[uri], uri),
        [T.TextDocumentContentChangeWholeDocument(new)]))
    client.text_document_did_save(T.DidSaveTextDocumentParams(T.TextDocumentIdentifier(uri)))
    if env.pull:  # VS Code watches the files and tells the server
        client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
            [T.FileEvent(uri, T.FileChangeType.Changed)]))
    changed: list[Any] = client.changed  # type: ignore[attr-defined]
    async with asyncio.timeout(20):
        while not changed:
            await asyncio.sleep(0.05)
    # `git push` ran in the sandbox unasked (workspace-write, on-request): now refused.
    expected = "this edit changes 2 past decisions: 1 allow → forbidden, 1 forbidden → ask"
    assert changed[0].summary == expected
    assert sorted((c.command, c.before, c.after) for c in changed[0].changes) == [
        ("git push origin main", "allow", "forbidden"), ("rm -rf build", "forbidden", "prompt")]
    assert any(m.message == f"ShellGate: {expected}" for m in client.messages)
    assert (await lens_titles(client, uri))[3].title == "matched 1 past command · last 2 days ago"
