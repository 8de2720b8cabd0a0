"""pytest-lsp harness: the real `shellgate serve` process, driven under the client
capabilities captured from real VS Code (code-server 1.100.3: pull diagnostics, inlay hints,
dynamic file watching) and from Neovim 0.7.2 (push diagnostics, no inlay hints)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types as T
from lsprotocol.converters import get_converter
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from lspsession import end

CAPS = Path(__file__).parent / "capabilities"
PROFILES = ["code-server-1.100.3", "neovim-0.7.2"]
SERVER = [sys.executable, "-m", "shellgate", "serve"]


def _published(client: LanguageClient, params: T.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published[params.uri] = params  # type: ignore[attr-defined]


def make_client() -> LanguageClient:
    """pytest-lsp's test client, also keeping each document's last publish (with its version)."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = {}  # type: ignore[attr-defined]
    register_lsp_features(
        client, {**DEFAULT_CLIENT_FEATURES, T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _published}
    )
    return client


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client)


def capabilities(profile: str) -> T.ClientCapabilities:
    raw = json.loads((CAPS / f"{profile}.json").read_text())["capabilities"]
    return get_converter().structure(raw, T.ClientCapabilities)


class Env:
    """Where a test's files live: an empty $CODEX_HOME and a project folder."""

    def __init__(self, root: Path, profile: str) -> None:
        self.profile = profile
        self.home = root / "codex-home"
        (self.home / "rules").mkdir(parents=True)
        self.project = root / "project"
        (self.project / ".codex" / "rules").mkdir(parents=True)
        self.pull = profile.startswith("code-server")
        self.versions: dict[str, int] = {}


async def initialize(client: LanguageClient, env: Env, **options: Any) -> None:
    """Initialize under `env.profile`'s capabilities, answering the server's registration and
    refresh requests as the real clients do; `options` join the initialization options."""

    @client.feature(T.CLIENT_REGISTER_CAPABILITY)
    def _register(params: T.RegistrationParams) -> None:
        return None

    @client.feature(T.WORKSPACE_INLAY_HINT_REFRESH)
    def _inlay_refresh(params: None) -> None:
        return None

    @client.feature(T.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(params: None) -> None:
        return None

    await client.initialize_session(
        T.InitializeParams(
            capabilities=capabilities(env.profile),
            root_uri=env.project.as_uri(),
            workspace_folders=[T.WorkspaceFolder(env.project.as_uri(), "project")],
            initialization_options={"codexHome": str(env.home), **options},
        )
    )


@pytest_lsp.fixture(config=CONFIG, params=PROFILES)
async def client(lsp_client: LanguageClient, request: Any, tmp_path: Path) -> Any:
    env = Env(tmp_path, request.param)
    lsp_client.env = env  # type: ignore[attr-defined]
    await initialize(lsp_client, env)
    yield
    await end(lsp_client)


def env_of(client: LanguageClient) -> Env:
    env: Env = client.env  # type: ignore[attr-defined]
    return env


def open_doc(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    env_of(client).versions[uri] = 1
    client.text_document_did_open(
        T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "codex-rules", 1, text))
    )
    return uri


def replace_all(client: LanguageClient, uri: str, text: str) -> None:
    versions = env_of(client).versions
    versions[uri] += 1
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(versions[uri], uri),
            [T.TextDocumentContentChangeWholeDocument(text)],
        )
    )


async def diagnostics(client: LanguageClient, uri: str, timeout: float = 20) -> list[T.Diagnostic]:
    """The diagnostics of the document's latest version, pulled or pushed per the profile."""
    env = env_of(client)
    if env.pull:
        report = await client.text_document_diagnostic_async(
            T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri))
        )
        assert report.kind == "full"
        return list(report.items)
    want = env.versions.get(uri)
    published: dict[str, T.PublishDiagnosticsParams] = client.published  # type: ignore[attr-defined]
    async with asyncio.timeout(timeout):
        while True:
            params = published.get(uri)
            if params is not None and (want is None or params.version == want):
                return list(params.diagnostics)
            await asyncio.sleep(0.02)


async def hover(client: LanguageClient, uri: str, line: int, character: int) -> str | None:
    result = await client.text_document_hover_async(
        T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(line, character))
    )
    if result is None:
        return None
    assert isinstance(result.contents, T.MarkupContent)
    return result.contents.value
