"""The broker endpoint in the language server: outside agents' hooks reach this editor.

Started once the server is initialized with workspace folders (its discovery file names
them), stopped with its discovery file removed on shutdown or exit. `shellgate/decide` answers
with the rules Codex would load from disk (never an open buffer); `shellgate/ask` goes to the
desk (shellgate.broker.desk): the same dialog as the embedded agent's, one at a time.

Custom request `shellgate/approvals` -> the desk's history `{waiting, showing, entries}`;
notification `shellgate/status` `{approvalsWaiting, approvalsShowing}` whenever they change.
"""

from __future__ import annotations

import atexit
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shellgate import __version__

if TYPE_CHECKING:
    from shellgate.broker.desk import Desk
    from shellgate.broker.endpoint import Endpoint
    from shellgate.broker.protocol import AgentDecision, AgentRequest
    from shellgate.lsp.server import ShellGateServer

log = logging.getLogger("shellgate.lsp")

APPROVALS = "shellgate/approvals"
STATUS = "shellgate/status"


class Broker:
    def __init__(self, server: ShellGateServer) -> None:
        self.server = server
        self.endpoint: Endpoint | None = None
        self._desk: Desk | None = None

    def codex_home(self) -> Path:
        from shellgate.rules.layers import default_codex_home

        return self.server.session.settings.codex_home or default_codex_home()

    @property
    def desk(self) -> Desk:
        if self._desk is None:
            from shellgate.broker.desk import Desk
            from shellgate.lsp.approvals import EditorApprover

            approver = EditorApprover(
                self.server, amendments_file=str(self.codex_home() / "rules" / "default.rules")
            )
            self._desk = Desk(approver, self.codex_home, on_change=self._changed)
        return self._desk

    async def start(self) -> None:
        roots = self.server.session.roots
        if not roots or self.endpoint is not None or os.environ.get("SHELLGATE_NO_BROKER"):
            return
        from shellgate.broker.endpoint import Endpoint

        endpoint = Endpoint(
            [str(r) for r in roots], on_decide=self._decide, on_ask=self._ask, version=__version__
        )
        try:
            info = await endpoint.start()
        except OSError as exc:  # no private runtime folder: the editor works, agents fall back
            log.warning("the broker is off: %s", exc)
            return
        self.endpoint = endpoint
        atexit.register(endpoint.close)
        log.info("broker listening on %s", info.socket)

    def stop(self) -> None:
        if self.endpoint is not None:
            self.endpoint.close()
            self.endpoint = None

    async def _decide(self, request: AgentRequest) -> AgentDecision:
        import asyncio

        from shellgate.broker.decide import decide

        return await asyncio.to_thread(decide, request, codex_home=self.codex_home())

    async def _ask(self, request: AgentRequest, timeout: float) -> Any:
        answer = await self.desk.ask(request, timeout)
        if answer.amendment_written:
            self.server.session.rules_changed()  # the rules on disk changed: re-read them
        return answer

    def _changed(self, desk: Desk) -> None:
        try:
            self.server.protocol.notify(
                STATUS, {"approvalsWaiting": desk.waiting, "approvalsShowing": desk.showing}
            )
        except Exception:  # a client gone mid-notification must not fail the question
            log.debug("status notification failed", exc_info=True)


def of(server: Any) -> Broker | None:
    broker = getattr(server, "shellgate_broker", None)
    return broker if isinstance(broker, Broker) else None


def register(server: ShellGateServer) -> None:
    broker = Broker(server)
    server.shellgate_broker = broker  # type: ignore[attr-defined]

    @server.feature(APPROVALS)
    def approvals(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        return broker.desk.to_json()
