"""Rules files on disk, watched: the client's file events when it offers them, else watchfiles.

`$CODEX_HOME` and the admin's `/etc/codex` usually lie outside the workspace, where clients do
not watch, so they are always watched here; the project's `.codex/rules` through the client
when it can register watchers. Every change drops the merged layers and tells the features
(diagnostics, hints) to refresh.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.codexconfig import SYSTEM_FOLDER

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

log = logging.getLogger("shellgate.lsp")

REGISTRATION_ID = "shellgate-rules-watch"
REGISTER_TIMEOUT = 5.0  # seconds: a client that never answers must not cost us the watching


def choose(ls: ShellGateServer, caps: T.ClientCapabilities) -> None:
    ws = caps.workspace
    dyn = ws.did_change_watched_files if ws is not None else None
    ls.session.client_watches = bool(dyn is not None and dyn.dynamic_registration)


def _project_dirs(ls: ShellGateServer) -> list[Path]:
    dirs = []
    for root in ls.session.roots:
        dot = root / ".codex"
        target = dot if dot.is_dir() else root
        if target.is_dir():
            dirs.append(target)
    return dirs


def _watch(ls: ShellGateServer, dirs: list[Path]) -> None:
    if dirs:
        ls.session.watch_tasks.append(asyncio.create_task(_run(ls, dirs)))


def _watch_home(ls: ShellGateServer) -> None:
    home = ls.session.settings.codex_home
    if home is not None and home.is_dir():
        ls.session.home_watch = asyncio.create_task(_run(ls, [home]))


def rewatch_home(ls: ShellGateServer) -> None:
    """The Codex home setting changed: watch the new one instead."""
    if ls.session.home_watch is not None:
        ls.session.home_watch.cancel()
        ls.session.home_watch = None
    _watch_home(ls)


def _watch_system(ls: ShellGateServer) -> None:
    """The admin's tier (/etc/codex: rules, requirements.toml), when there is one."""
    system = Path(SYSTEM_FOLDER)
    if system.is_dir():
        _watch(ls, [system])


async def start(ls: ShellGateServer) -> None:
    session = ls.session
    _watch_home(ls)
    _watch_system(ls)
    if session.client_watches:
        watcher = T.FileSystemWatcher(glob_pattern="**/*.rules")
        registration = T.Registration(
            id=REGISTRATION_ID,
            method=T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=T.DidChangeWatchedFilesRegistrationOptions(watchers=[watcher]),
        )
        try:
            await asyncio.wait_for(
                ls.client_register_capability_async(T.RegistrationParams([registration])),
                REGISTER_TIMEOUT,
            )
            return
        except Exception as exc:  # refused, or no answer: watch the project ourselves
            log.info("client file watching unavailable (%r); using watchfiles", exc)
            session.client_watches = False
    _watch(ls, _project_dirs(ls))


def _is_rules(_change: object, path: str) -> bool:
    return path.endswith((".rules", "/rules", "/requirements.toml"))


async def _run(ls: ShellGateServer, dirs: list[Path]) -> None:
    # deferred: watchfiles (~13 ms) only when the client does not watch files
    from watchfiles import awatch

    log.info("watching %s", ", ".join(map(str, dirs)))
    try:
        async for changes in awatch(
            *dirs, watch_filter=_is_rules, debounce=100, step=50, stop_event=ls.session.stop
        ):
            log.info("rules changed on disk: %s", ", ".join(sorted({p for _, p in changes})))
            ls.session.rules_changed()
    except Exception as exc:  # a vanished folder, inotify limits: keep serving without it
        log.warning("file watching stopped: %s", exc)


def on_client_event(ls: ShellGateServer, params: T.DidChangeWatchedFilesParams) -> None:
    if any(c.uri.endswith(".rules") for c in params.changes):
        ls.session.rules_changed()


def register(server: ShellGateServer) -> None:
    server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)(on_client_event)


def stop(ls: ShellGateServer) -> None:
    ls.session.stop.set()
    for task in ls.session.watch_tasks:
        task.cancel()
    ls.session.watch_tasks.clear()
    rewatch = ls.session.home_watch
    if rewatch is not None:
        rewatch.cancel()
        ls.session.home_watch = None
