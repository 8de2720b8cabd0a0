"""The server stays up and answers for the final text: huge files, deleted files, bursts of
edits, a client that never answers the server's requests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import LanguageClient

from lspsession import end

from .conftest import CONFIG, Env, capabilities, diagnostics, env_of, hover, open_doc
from .test_workspace import wait_for_hover


async def test_fifty_thousand_lines(client: LanguageClient) -> None:
    rules = "".join(
        f'prefix_rule(\n    pattern = ["tool{i}", "run"],\n    decision = "prompt",\n'
        f'    match = ["tool{i} run x"],\n)\n'
        for i in range(10_000)
    )
    assert rules.count("\n") == 50_000
    uri = open_doc(client, env_of(client).project / "big.rules", rules)
    items = await diagnostics(client, uri, timeout=240)
    assert not [d for d in items if d.severity == T.DiagnosticSeverity.Error]
    text = await hover(client, uri, 49_999, 0)  # the last rule's closing parenthesis
    assert text is not None and "`tool9999 run` → **prompt**" in text
    text = await hover(client, uri, 49_998, 16)  # its example
    assert text is not None and "**match example** `tool9999 run x`" in text


async def test_file_deleted_while_open(client: LanguageClient) -> None:
    path = env_of(client).project / ".codex" / "rules" / "gone.rules"
    text = 'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n# check: git push\n'
    path.write_text(text)
    uri = open_doc(client, path, text)
    await diagnostics(client, uri)
    path.unlink()
    await asyncio.sleep(0.3)  # let the watcher see it
    answer = await hover(client, uri, 1, 12)
    assert answer is not None and "prompt" in answer  # the open text still counts


async def test_server_logs_to_the_client_not_stdout(client: LanguageClient) -> None:
    # Any stray byte on stdout would have broken the protocol long before this point.
    uri = open_doc(client, env_of(client).project / "l.rules", "# check: ls\n")
    assert await hover(client, uri, 0, 10) is not None
    assert any("watching" in m.message for m in client.log_messages)


@pytest_lsp.fixture(config=CONFIG)
async def silent_client(lsp_client: LanguageClient, tmp_path: Path) -> Any:
    """A VS Code-like client that never answers the server's requests."""
    env = Env(tmp_path, "code-server-1.100.3")
    lsp_client.env = env  # type: ignore[attr-defined]
    never = asyncio.get_running_loop().create_future()

    @lsp_client.feature(T.CLIENT_REGISTER_CAPABILITY)
    async def _register(params: T.RegistrationParams) -> None:
        await never

    @lsp_client.feature(T.WORKSPACE_INLAY_HINT_REFRESH)
    async def _refresh(params: None) -> None:
        await never

    @lsp_client.feature(T.WORKSPACE_CODE_LENS_REFRESH)
    async def _lens_refresh(params: None) -> None:
        await never

    await lsp_client.initialize_session(
        T.InitializeParams(
            capabilities=capabilities("code-server-1.100.3"),
            root_uri=env.project.as_uri(),
            initialization_options={"codexHome": str(env.home)},
        )
    )
    yield
    never.cancel()
    await end(lsp_client)


async def test_client_that_never_answers(silent_client: LanguageClient) -> None:
    env = env_of(silent_client)
    uri = open_doc(silent_client, env.project / "s.rules", "# check: ls -l\n")
    text = await hover(silent_client, uri, 0, 10)
    assert text is not None and text.startswith("**# check:** `ls -l`")
    (env.home / "rules" / "a.rules").write_text('prefix_rule(pattern = ["ls"])\n')
    # The watcher fires refreshes the client never answers; the server keeps serving.
    await wait_for_hover(silent_client, uri, 0, 10, "a.rules:1 [user]")
    assert (await diagnostics(silent_client, uri)) == []


async def test_lone_surrogates_and_control_characters(client: LanguageClient) -> None:
    text = 'prefix_rule(pattern = ["\ud800"])\n# check: ls \ud800\x01\nprefix_rule(\x00\n'
    uri = open_doc(client, env_of(client).project / "odd.rules", text)
    items = await diagnostics(client, uri)
    assert [d for d in items if d.severity == T.DiagnosticSeverity.Error]
    answer = await hover(client, uri, 1, 10)
    assert answer is not None and answer.startswith("**# check:**")
