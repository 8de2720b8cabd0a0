"""Rule coverage in the editor: a code lens on each rule ("matched 37 past commands · last 2
days ago", or "never matched") whose command lists them, and, when rules on disk change, a
notice of the past decisions the change alters ("this edit changes 7 past decisions: 5 ask →
allow, 2 allow → forbidden") with the list in a `shellgate/pastDecisionsChanged` notification.

The histories read are the `replay.sources` setting (default: those found in the default
places), read once, in the background; `replay.enabled: false` turns it all off;
`replay.clientShowsChanges: true` says the client shows the notification itself (VS Code, with
a "Show the list" button), so no `window/showMessage` is sent. The logic is
`shellgate.replay.coverage`; nothing read leaves the machine.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.lsp.convert import encoding, to_range
from shellgate.lsp.tracing import context_for

if TYPE_CHECKING:
    from shellgate.lint.workspace import MergedPolicy
    from shellgate.lsp.server import ShellGateServer
    from shellgate.replay.coverage import CoverageIndex, RuleCoverage
    from shellgate.replay.engine import RuleKey
    from shellgate.rules.policy import Policy

log = logging.getLogger("shellgate.lsp")

SHOW_COMMAND = "shellgate.showPastCommands"
CHANGED_NOTIFICATION = "shellgate/pastDecisionsChanged"


@dataclass
class _State:
    pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="shellgate-coverage"))
    index: CoverageIndex | None = None
    loading: asyncio.Task[None] | None = None
    merged: MergedPolicy | None = None  # the policy `coverage` was computed for
    coverage: dict[RuleKey, RuleCoverage] = field(default_factory=dict)
    disk: Policy | None = None  # the policy of the last notice (what "this edit" is against)


_STATES: dict[int, _State] = {}


def _state(ls: ShellGateServer) -> _State:
    return _STATES.setdefault(id(ls), _State())


def _read(sources: tuple[str, ...] | None) -> CoverageIndex:
    # deferred: the history readers and coverage (~11 ms) until a lens is asked
    from shellgate.replay.coverage import CoverageIndex
    from shellgate.replay.model import ReadStats
    from shellgate.replay.sources import SourceError, default_sources, parse_source, read_sources

    found = []
    if sources is None:
        found = list(default_sources())
    else:
        for text in sources:
            try:
                found.append(parse_source(os.path.expanduser(text)))
            except SourceError as exc:
                log.warning("replay.sources: %s", exc)
    stats = ReadStats()
    index = CoverageIndex(read_sources(found, stats))
    log.info("coverage: %d past commands (%d distinct) from %d files; %d entries skipped",
             index.total, len(index.past), stats.files, stats.skipped)  # fmt: skip
    return index


async def _index(ls: ShellGateServer) -> CoverageIndex | None:
    settings = ls.session.settings
    if not settings.replay_enabled:
        return None
    state = _state(ls)
    if state.index is None:
        if state.loading is None:
            loop = asyncio.get_running_loop()

            async def load() -> None:
                index = await loop.run_in_executor(state.pool, _read, settings.replay_sources)
                state.disk = (await ls.session.merged_async()).policy
                state.index = index

            state.loading = asyncio.ensure_future(load())
        await asyncio.shield(state.loading)
    return state.index


async def _coverage(ls: ShellGateServer) -> dict[RuleKey, RuleCoverage] | None:
    index = await _index(ls)
    if index is None:
        return None
    state = _state(ls)
    merged = await ls.session.merged_async()
    if merged is not state.merged:
        loop = asyncio.get_running_loop()
        state.coverage = await loop.run_in_executor(state.pool, index.coverage, merged.policy)
        state.merged = merged
    return state.coverage


async def lenses(ls: ShellGateServer, uri: str) -> list[T.CodeLens]:
    """One lens per prefix_rule call of the document: its rules' past matches."""
    # deferred: replay.render (~15 ms) until a lens is asked
    from shellgate.replay.render import ago

    coverage = await _coverage(ls)
    analysis = await ls.session.analysis_async(uri)
    if coverage is None or analysis is None:
        return []
    enc = encoding(ls)
    out = []
    for call, rules in analysis.rule_calls:
        hits, last = 0, None
        commands: list[str] = []
        for rule in rules:
            span = rule.span
            got = coverage.get((span.path, span.line, span.column)) if span else None
            if got is None:
                continue
            hits += got.hits
            commands.extend(got.commands)
            if got.last is not None and (last is None or got.last > last):
                last = got.last
        if hits:
            noun = "command" if hits == 1 else "commands"
            when = "" if last is None else f" · last {ago(last)}"
            title = f"matched {hits} past {noun}{when}"
        else:
            title = "never matched"
        where = f"{os.path.basename(analysis.path)}:{call.span.line}"
        out.append(T.CodeLens(
            range=to_range(analysis.lines, call.span, enc),
            command=T.Command(title=title, command=SHOW_COMMAND,
                              arguments=[{"rule": where, "commands": commands}]),
        ))  # fmt: skip
    return out


async def _notice(ls: ShellGateServer) -> None:
    # deferred: as in _read, until a notice is due
    from shellgate.replay.coverage import summary

    index = await _index(ls)
    state = _state(ls)
    if index is None or state.disk is None:
        return
    new = (await ls.session.merged_async()).policy
    old, state.disk = state.disk, new
    context = context_for(ls.session.settings)
    loop = asyncio.get_running_loop()
    changes = await loop.run_in_executor(state.pool, index.changes, old, new, context)
    if changes:
        text = summary(changes)
        if not ls.session.settings.replay_client_notice:
            ls.window_show_message(T.ShowMessageParams(T.MessageType.Info, f"ShellGate: {text}"))
        ls.protocol.notify(CHANGED_NOTIFICATION, {"summary": text, "changes": [
            {"command": c.command, "count": c.count, "before": c.before.value,
             "after": c.after.value} for c in changes]})  # fmt: skip
    ws = ls.client_capabilities.workspace
    if ws is not None and ws.code_lens is not None and ws.code_lens.refresh_support:
        ls.workspace_code_lens_refresh(None)


def _log_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("coverage notice failed: %r", task.exception())


def register(server: ShellGateServer) -> None:
    def on_rules_changed() -> None:
        if not server.session.settings.replay_enabled:
            return
        task = asyncio.ensure_future(_notice(server))
        task.add_done_callback(_log_failure)

    server.session.listeners.append(on_rules_changed)
