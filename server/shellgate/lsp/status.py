"""Custom request `shellgate/status`: what the server has loaded, for the editor's status bar.

Result: `{"rules": N, "files": [paths], "layers": [layer of each file], "refused": [{"path",
"line", "column", "message"}], "unsaved": [paths], "drafts": [paths]}`: the rules that run
(every layer as saved on disk), the files Codex would refuse (then it runs with none of the
rules), and what the editor shows but does not run: layer files with unsaved edits, and open
drafts outside every layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shellgate.lsp.session import document_path

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

METHOD = "shellgate/status"


def register(server: ShellGateServer) -> None:
    @server.feature(METHOD)
    async def status(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        merged = await ls.session.running_async()
        typed = await ls.session.merged_async()
        session = ls.session
        drafts = [
            p
            for p in (document_path(u) for u in session.open_uris())
            if p.endswith(".rules") and merged.layer_of(p) is None
        ]
        return {
            "rules": len(merged.policy.rules),
            "files": [f.path for f in merged.files],
            "layers": [f.layer for f in merged.files],  # of each file, in the same order
            "refused": [
                {"path": e.path, "line": e.line, "column": e.column, "message": e.message}
                for _, e in merged.broken
            ],
            "unsaved": list(typed.unsaved),
            "drafts": drafts,
        }
