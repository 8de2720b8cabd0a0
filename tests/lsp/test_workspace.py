"""The workspace: every Codex layer merged so hovers answer as Codex would, and rules files on
disk watched and reloaded (watchfiles for $CODEX_HOME, the client's events when it offers)."""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types as T
from pytest_lsp import LanguageClient

from .conftest import diagnostics, env_of, hover, open_doc

PROJECT_RULE = """prefix_rule(
    pattern = ["curl", "-s"],
    decision = "allow",
    match = ["curl -s example.com"],
)
"""


async def wait_for_hover(
    client: LanguageClient, uri: str, line: int, col: int, needle: str, timeout: float = 5
) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        text = await hover(client, uri, line, col)
        if text is not None and needle in text:
            return time.monotonic() - start
        await asyncio.sleep(0.05)
    raise AssertionError(f"hover never showed {needle!r}; last: {text}")


async def test_layers_are_merged_and_reloaded_on_change(client: LanguageClient) -> None:
    env = env_of(client)
    user = env.home / "rules" / "default.rules"
    user.write_text('prefix_rule(pattern = ["curl"], decision = "forbidden")\n')
    uri = open_doc(client, env.project / ".codex" / "rules" / "net.rules", PROJECT_RULE)
    text = await hover(client, uri, 0, 3 + 9)
    assert text is not None
    # The project allows `curl -s`, but the user layer's forbidden `curl` wins.
    assert "**forbidden** by default.rules:1 (user)" in text
    user.write_text('prefix_rule(pattern = ["curl"], decision = "prompt")\n')
    took = await wait_for_hover(client, uri, 0, 12, "**prompt** by default.rules:1 (user)")
    assert took < 2.0, f"reload took {took:.2f}s"


async def test_project_layer_file_changes(client: LanguageClient) -> None:
    env = env_of(client)
    other = env.project / ".codex" / "rules" / "other.rules"
    uri = open_doc(client, env.project / "scratch.rules", "# check: make deploy\n")
    assert await wait_for_hover(client, uri, 0, 12, "make deploy") >= 0
    other.write_text('prefix_rule(pattern = ["make", "deploy"], decision = "forbidden")\n')
    if env.pull:  # VS Code watches the workspace itself and tells the server
        client.workspace_did_change_watched_files(
            T.DidChangeWatchedFilesParams([T.FileEvent(other.as_uri(), T.FileChangeType.Created)])
        )
    await wait_for_hover(client, uri, 0, 12, "other.rules:1 [project]")


async def test_broken_layer_is_reported_in_hovers(client: LanguageClient) -> None:
    env = env_of(client)
    (env.home / "rules" / "bad.rules").write_bytes(b'prefix_rule(pattern = ["\xff"])\n')
    uri = open_doc(client, env.project / "x.rules", "# check: ls\n")
    text = await hover(client, uri, 0, 10)
    assert text is not None
    assert "Codex refuses to load the rules today" in text
    assert "stream did not contain valid UTF-8" in text
    # The open document itself is fine.
    assert not [d for d in await diagnostics(client, uri) if d.severity == 1]
