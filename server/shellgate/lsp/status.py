"""Custom request `shellgate/status`: what the server has loaded, for the editor's status bar.

Result: `{"rules": N, "files": [paths], "layers": [layer of each file], "refused": [{"path",
"line", "column", "message"}], "approvalsWaiting": N, "approvalsShowing": 0|1}`: the rules of
every layer merged (open documents included), the files Codex would refuse (then it runs with
none of the rules), and outside agents' questions queued behind the dialog on screen (also
pushed as the notification `shellgate/status` with just those two counts, lsp/broker.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

METHOD = "shellgate/status"


def register(server: ShellGateServer) -> None:
    @server.feature(METHOD)
    async def status(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        merged = await ls.session.merged_async()
        broker = getattr(ls, "shellgate_broker", None)
        desk = broker.desk if broker is not None else None
        return {
            "approvalsWaiting": desk.waiting if desk is not None else 0,
            "approvalsShowing": desk.showing if desk is not None else 0,
            "rules": len(merged.policy.rules),
            "files": [f.path for f in merged.files],
            "layers": [f.layer for f in merged.files],  # of each file, in the same order
            "refused": [
                {"path": e.path, "line": e.line, "column": e.column, "message": e.message}
                for _, e in merged.broken
            ],
        }
