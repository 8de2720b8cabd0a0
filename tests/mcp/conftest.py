import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "exec"))

import os
from collections.abc import AsyncIterator

import pytest_lsp
from exec_helpers import outside, probe, workspace
from mcp_helpers import RUNTIME, SERVER
from pytest_lsp import ClientServerConfig, LanguageClient

from lspsession import end


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=SERVER, server_env={**os.environ, "XDG_RUNTIME_DIR": str(RUNTIME)}))  # fmt: skip
async def editor(lsp_client: LanguageClient) -> AsyncIterator[None]:  # the test gets the client
    yield
    await end(lsp_client)

__all__ = ["editor", "outside", "probe", "workspace"]
