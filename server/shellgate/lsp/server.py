"""The ShellGate language server: every feature registered here, in one readable place.

Each feature is a module with `register(server)`: a thin adapter from LSP types to the
library (`shellgate.lint`, `shellgate.explain`, `shellgate.rules`). The session (documents,
settings, the merged Codex layers) lives in `session.py`.
"""

from __future__ import annotations

import importlib
import logging

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from shellgate import __version__
from shellgate.lsp import logs
from shellgate.lsp.session import Session

log = logging.getLogger("shellgate.lsp")

FEATURES = (
    "shellgate.lsp.lifecycle",  # initialize options, workspace roots
    "shellgate.lsp.configuration",  # workspace/didChangeConfiguration: settings apply live
    "shellgate.lsp.watch",  # rules files on disk: client events or watchfiles
    "shellgate.lsp.diagnostics",  # pull when the client can, push otherwise
    "shellgate.lsp.hover",
    "shellgate.lsp.completion",
    "shellgate.lsp.actions",  # quick fixes, "add a not_match example"
    "shellgate.lsp.symbols",  # the rules as an outline
    "shellgate.lsp.check_hints",  # `# check:` decisions as inlay hints or code lenses
    "shellgate.lsp.coverage",  # each rule's past matches (code lens), notice of changed decisions
    "shellgate.lsp.explain_request",  # custom request shellgate/explain
    "shellgate.lsp.status",  # custom request shellgate/status (the editor's status bar)
    "shellgate.lsp.agent",  # the embedded agent: start/cancel commands, progress, events
    "shellgate.lsp.broker",  # outside agents' hooks: the broker endpoint, shellgate/approvals
    "shellgate.lsp.policy_view",  # the Policy view: shellgate/policy, pushed on every change
    "shellgate.lsp.history_view",  # the History view: the record, pushed as it grows
)

# Editor approvals and running commands through the chain: optional, since they need the
# sandbox and the approval modules; a failure there must not take linting down.
OPTIONAL_FEATURES = ("shellgate.lsp.approvals", "shellgate.lsp.run_command")


class ShellGateServer(LanguageServer):
    def __init__(self) -> None:
        # Threaded handlers share this pool with the stdio reader: keep spare workers.
        super().__init__(
            "shellgate",
            __version__,
            text_document_sync_kind=T.TextDocumentSyncKind.Incremental,
            max_workers=8,
        )
        self.session = Session()


def build_server() -> ShellGateServer:
    server = ShellGateServer()
    logs.install(server)
    for name in FEATURES:
        importlib.import_module(name).register(server)
    for name in OPTIONAL_FEATURES:
        try:
            importlib.import_module(name).register(server)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                log.exception("%s is unavailable; the rest of the server works", name)
        except Exception:  # one broken feature must not take the editor's linting down
            log.exception("%s failed to start; the rest of the server works", name)
    return server
