"""The Policy view: custom request `shellgate/policy`, notification `shellgate/policyChanged`.

`shellgate/policy` -> `{"folders": [...]}`, one entry a workspace folder (`lint.overview`):
the layers Codex loads for a session there, as saved on disk, each file with its rules and
load state, the project's trust and the admin's clamp. `shellgate/policyChanged` (no params)
is pushed whenever a rules file, Codex's config.toml or the admin's tier changes on disk, so
the view asks again: no refresh button.

`shellgate/trustProject` `{"folder"}` records the folder as trusted the way Codex does
(`[projects."<folder>"] trust_level = "trusted"` in `$CODEX_HOME/config.toml`), then the view
refreshes; the result says what was written.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shellgate.codexconfig.layers import default_codex_home
from shellgate.codexconfig.trusting import trust_folder
from shellgate.exec.deny_read import managed_deny_read
from shellgate.lint.overview import folder_overview
from shellgate.lint.workspace import discover_layer_files
from shellgate.lsp.status import requirements_clamp
from shellgate.lsp.tracing import codex_trust_notes
from shellgate.rules.errors import RulesError

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

log = logging.getLogger("shellgate.lsp")

METHOD = "shellgate/policy"
CHANGED = "shellgate/policyChanged"
TRUST = "shellgate/trustProject"


def overview(ls: ShellGateServer) -> dict[str, Any]:
    session = ls.session
    settings = session.settings
    clamp = requirements_clamp(settings)
    try:
        denied = managed_deny_read()
    except RulesError:  # a requirements.toml Codex refuses: the clamp above says so
        denied = ()
    folders = []
    for root in session.roots or [Path.cwd()]:
        files = discover_layer_files(
            codex_home=settings.codex_home,
            project_roots=[root] if settings.trust_project else [],
            extra=settings.extra_rules,
        )
        notes = codex_trust_notes(settings, [root])
        folders.append(folder_overview(
            str(root), files, session.disk_analysis,
            trust=notes[0] if notes else None, requirements=clamp, deny_read=denied,
        ))  # fmt: skip
    return {"folders": folders}


def register(server: ShellGateServer) -> None:
    @server.feature(METHOD)
    async def policy(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        return await asyncio.get_running_loop().run_in_executor(None, overview, ls)

    @server.feature(TRUST)
    def trust(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        folder = getattr(params, "folder", None) or (params or {}).get("folder")
        home = ls.session.settings.codex_home or default_codex_home()
        written = trust_folder(home, Path(str(folder)))
        ls.session.rules_changed()  # project layers load now: re-read them, refresh the views
        return {"config": str(written.path), "written": written.text}

    def changed() -> None:
        try:
            server.protocol.notify(CHANGED, {})
        except Exception:  # a client gone mid-notification must not fail the reload
            log.debug("policy notification failed", exc_info=True)

    server.session.listeners.append(changed)
