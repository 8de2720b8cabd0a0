"""The broker endpoint in the language server: outside agents' hooks reach this editor.

Started once the server is initialized with workspace folders (its discovery file names
them), stopped with its discovery file removed on shutdown or exit. `shellgate/decide` answers
with the rules Codex would load from disk (never an open buffer); `shellgate/ask` goes to the
desk (shellgate.broker.desk): the same dialog as the embedded agent's, one at a time.

The discovery file follows `workspace/didChangeWorkspaceFolders`.
Custom request `shellgate/approvals` -> the desk's history `{waiting, showing, entries}`;
notification `shellgate/status` `{approvalsWaiting, approvalsShowing}` whenever they change;
notification `shellgate/approveClosed` `{id, message}` when a question on screen is over
unanswered (after the `$/cancelRequest` of its `shellgate/approve`): close it, show `message`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T
from pygls.uris import to_fs_path

from shellgate import __version__
from shellgate.broker.decide import decide
from shellgate.broker.desk import HISTORY, Desk
from shellgate.broker.endpoint import Endpoint
from shellgate.broker.protocol import display_name
from shellgate.codexconfig.layers import default_codex_home
from shellgate.lsp.approvals import EditorApprover
from shellgate.record.history import answered

if TYPE_CHECKING:
    from collections.abc import Callable

    from shellgate.approval.question import ApprovalRequest
    from shellgate.broker.desk import Desk
    from shellgate.broker.endpoint import Endpoint
    from shellgate.broker.protocol import AgentDecision, AgentRequest
    from shellgate.lsp.server import ShellGateServer

log = logging.getLogger("shellgate.lsp")

APPROVALS = "shellgate/approvals"
STATUS = "shellgate/status"
CLOSED = "shellgate/approveClosed"


class Broker:
    def __init__(self, server: ShellGateServer) -> None:
        self.server = server
        self.endpoint: Endpoint | None = None
        self._desk: Desk | None = None
        self.started = time.time()  # the record holds what was answered before

    def codex_home(self) -> Path:
        return self.server.session.settings.codex_home or default_codex_home()

    @property
    def desk(self) -> Desk:
        if self._desk is None:
            approver = EditorApprover(
                self.server, amendments_file=str(self.codex_home() / "rules" / "default.rules")
            )
            self._desk = Desk(approver, self.codex_home, on_change=self._changed,
                              on_closed=self._closed)  # fmt: skip
        return self._desk

    async def start(self) -> None:
        roots = self.server.session.roots
        if not roots or self.endpoint is not None or os.environ.get("SHELLGATE_NO_BROKER"):
            return

        endpoint = Endpoint(
            [str(r) for r in roots], on_decide=self._decide, on_ask=self._ask, version=__version__,
            on_reviewed=self._reviewed,
        )
        try:
            info = await endpoint.start()
        except OSError as exc:  # no private runtime folder: the editor works, agents fall back
            log.warning("the broker is off: %s", exc)
            return
        self.endpoint = endpoint
        endpoint.close_on_exit()
        log.info("broker listening on %s", info.socket)

    def stop(self) -> None:
        if self.endpoint is not None:
            self.endpoint.close()
            self.endpoint = None

    async def _decide(self, request: AgentRequest) -> AgentDecision:
        return await asyncio.to_thread(decide, request, codex_home=self.codex_home())

    async def _ask(self, request: AgentRequest, decision: AgentDecision, timeout: float) -> Any:
        desk = self.desk
        # Settings apply live: the dialog names the file the amendment would go to today.
        desk.approver.amendments_file = str(self.codex_home() / "rules" / "default.rules")  # type: ignore[attr-defined]
        answer = await desk.ask(request, decision, timeout)
        if answer.amendment_written:
            self.server.session.rules_changed()  # the rules on disk changed: re-read them
        return answer

    def _reviewed(self, request: AgentRequest, decision: AgentDecision, review: Any) -> None:
        self.desk.reviewed(request, decision, review)  # Show Approvals lists it

    def _changed(self, desk: Desk) -> None:
        try:
            self.server.protocol.notify(
                STATUS, {"approvalsWaiting": desk.waiting, "approvalsShowing": desk.showing}
            )
        except Exception:  # a client gone mid-notification must not fail the question
            log.debug("status notification failed", exc_info=True)

    def _closed(self, entry: Any, notice: str) -> None:
        try:
            self.server.protocol.notify(CLOSED, {"id": entry.id, "message": notice})
        except Exception:
            log.debug("close notification failed", exc_info=True)


def to_history(
    server: Any, agent: str, session_id: str | None = None
) -> Callable[[ApprovalRequest, dict[str, str | None]], None] | None:
    """A reviewer's `on_verdict` for the editor's own runs: Show Approvals lists each verdict
    (None when the broker is off)."""
    broker = getattr(server, "shellgate_broker", None)
    if broker is None:
        return None
    return lambda q, v: broker.desk.reviewed_question(q, v, agent=agent, session_id=session_id)


def register(server: ShellGateServer) -> None:
    broker = Broker(server)
    server.shellgate_broker = broker  # type: ignore[attr-defined]

    @server.feature(T.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: ShellGateServer, params: T.DidChangeWorkspaceFoldersParams) -> None:
        # pygls has updated ls.workspace already; the discovery file follows it.
        if broker.endpoint is not None:

            paths = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
            broker.endpoint.update_folders([p for p in paths if p])

    @server.feature(APPROVALS)
    def approvals(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        """The desk's questions since this server started, after the ones answered before
        (from the record: the history survives a restart)."""
        live = broker.desk.to_json()
        past = answered(broker.started, HISTORY)
        for entry in past:
            entry["agentName"] = display_name(str(entry["agent"]))
        return {**live, "entries": [*past, *live["entries"]]}
