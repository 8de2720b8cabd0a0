"""`workspace/didChangeConfiguration`: a settings change applies at once, no restart.

The settings arrive pushed (`{"settings": {"shellgate": {...}}}`, as VS Code's client sends its
`shellgate` section, or the section's keys at the top level), or, when a client pushes nothing,
are pulled with `workspace/configuration`. A new Codex home re-points the watcher on its rules;
every change re-reads the layers and refreshes what the editor shows.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from shellgate.lsp import watch
from shellgate.lsp.tracing import context_for

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

log = logging.getLogger("shellgate.lsp")
SECTION = "shellgate"


def section_of(settings: Any) -> Any:
    if isinstance(settings, dict) and isinstance(settings.get(SECTION), dict):
        return settings[SECTION]
    return settings


def apply(ls: ShellGateServer, options: Any) -> None:
    session = ls.session
    old = session.settings
    new = old.updated(options)
    for name in ("approval_policy", "sandbox"):  # each checked alone: one typo drops only itself
        try:
            context_for(replace(old, **{name: getattr(new, name)}))
        except ValueError as exc:  # keep what worked: a typo must not break every hover
            log.warning("ignoring the %s change: %s", name.replace("_", " "), exc)
            ls.window_show_message(T.ShowMessageParams(T.MessageType.Warning, f"ShellGate: {exc}"))
            new = replace(new, **{name: getattr(old, name)})
    if new == old:
        return
    session.settings = new
    log.info("settings changed: %s", new)
    if new.codex_home != old.codex_home:
        watch.rewatch_home(ls)
    session.rules_changed()


def register(server: ShellGateServer) -> None:
    @server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: ShellGateServer, params: T.DidChangeConfigurationParams
    ) -> None:
        options = section_of(params.settings)
        if not isinstance(options, dict) or not options:
            try:
                pulled = await ls.workspace_configuration_async(
                    T.ConfigurationParams([T.ConfigurationItem(section=SECTION)])
                )
            except Exception as exc:  # a client without workspace/configuration
                log.info("no settings pushed and none pulled: %r", exc)
                return
            options = pulled[0] if pulled else None
        apply(ls, options)
