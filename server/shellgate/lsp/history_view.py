"""The History view: custom request `shellgate/history`, notification `shellgate/historyChanged`.

`shellgate/history` -> `{"entries": [...]}`: every decision of the record (`record.history
.decisions`: the hooks', the MCP tool's, `run`'s, the agent's, the editor's), newest last, the
agent's display name added. The record is written by other processes (each hook is one), so the
server watches its folder once the view has asked, and pushes `shellgate/historyChanged` (no
params) when a decision is appended: the view asks again, no refresh button.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shellgate.broker.protocol import display_name
from shellgate.record.chain import state_dir
from shellgate.record.history import decisions

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

log = logging.getLogger("shellgate.lsp")

METHOD = "shellgate/history"
CHANGED = "shellgate/historyChanged"
LIMIT = 500  # decisions shown; the log keeps more (`shellgate log`)


def history() -> dict[str, Any]:
    entries = decisions(LIMIT, state_dir())
    for e in entries:
        e["agentName"] = display_name(e["agent"]) if e["agent"] else "?"
    return {"entries": entries}


async def _watch(server: ShellGateServer, folder: Path) -> None:
    # deferred: watchfiles (~13 ms) once the History view has asked
    from watchfiles import awatch

    folder.mkdir(parents=True, exist_ok=True)
    try:
        async for _ in awatch(folder, watch_filter=lambda _c, p: p.endswith(".jsonl"),
                              debounce=200, step=50, stop_event=server.session.stop):  # fmt: skip
            server.protocol.notify(CHANGED, {})
    except Exception as exc:  # a vanished folder, inotify limits: the view still answers
        log.warning("watching the decision record stopped: %s", exc)


def register(server: ShellGateServer) -> None:
    watching: list[asyncio.Task[None]] = []

    @server.feature(METHOD)
    async def history_request(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        if not watching:
            watching.append(asyncio.create_task(_watch(ls, Path(state_dir()))))
        return await asyncio.get_running_loop().run_in_executor(None, history)
