"""Ending a language-server session a test fixture started.

pytest-lsp's teardown waits for the server to exit, and `shutdown_session` does nothing when the
session was never initialized (a test that skipped before `initialize`): the server would then
wait on its open stdin until pytest-timeout ends the test, minutes later. `end` asks such a
server to exit (LSP allows `exit` before `initialize`), so a skip costs nothing."""

from __future__ import annotations

import asyncio

from pytest_lsp import LanguageClient


async def end(client: LanguageClient, seconds: float = 20) -> None:
    if client.capabilities is None:
        client.exit(None)
        return
    await asyncio.wait_for(client.shutdown_session(), seconds)
