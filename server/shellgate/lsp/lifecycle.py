"""Session set-up: settings from `initializationOptions`, workspace roots, file watching."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as T
from pygls.uris import to_fs_path

from shellgate.lsp import telemetry, watch
from shellgate.lsp.session import Settings
from shellgate.lsp.tracing import context_for

log = logging.getLogger("shellgate.lsp")

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer


def _roots(params: T.InitializeParams) -> tuple[Path, ...]:
    uris = [f.uri for f in params.workspace_folders or []]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    paths = [to_fs_path(u) for u in uris]
    if not paths and params.root_path:
        paths = [params.root_path]
    return tuple(Path(p) for p in paths if p)


def register(server: ShellGateServer) -> None:
    @server.feature(T.INITIALIZE)
    def initialize(ls: ShellGateServer, params: T.InitializeParams) -> None:
        session = ls.session
        session.settings = Settings.from_options(params.initialization_options)
        try:
            context_for(session.settings)
        except ValueError as exc:  # a bad setting must not break every hover
            log.warning("ignoring the approval policy / sandbox settings: %s", exc)
            session.settings = replace(
                session.settings, approval_policy="on-request", sandbox="workspace-write"
            )
        session.roots = _roots(params)
        session.workspace = ls.workspace
        caps = params.capabilities.text_document
        session.supports_pull = caps is not None and caps.diagnostic is not None
        watch.choose(ls, params.capabilities)

    @server.feature(T.INITIALIZED)
    async def initialized(ls: ShellGateServer, params: T.InitializedParams) -> None:
        await watch.start(ls)
        telemetry.start()  # what the hooks could not send yet, every 30 s
        broker = getattr(ls, "shellgate_broker", None)
        if broker is not None:  # outside agents reach this editor from now on
            await broker.start()

    @server.feature(T.SHUTDOWN)
    def shutdown(ls: ShellGateServer, params: None) -> None:
        watch.stop(ls)
        broker = getattr(ls, "shellgate_broker", None)
        if broker is not None:
            broker.stop()
