"""The language server sends what waits in the telemetry spool (shellgate.record.spool) every
30 s while it runs: events the hooks could not send (a collector down, then back) reach the
collector without waiting for the next decision. Nothing is imported from OpenTelemetry unless
something waits and `[otel]` exports."""

from __future__ import annotations

import asyncio
import logging

from shellgate.record import chain, spool

log = logging.getLogger("shellgate.lsp")

EVERY = 30.0
_tasks: set[asyncio.Task[None]] = set()


async def _keep_sending(every: float) -> None:
    folder = spool.folder_of(chain.state_dir())
    while True:
        if spool.pending(folder) and not spool.backing_off(folder):
            try:
                # deferred: the sender (and OpenTelemetry), only when something waits
                from shellgate.record.drain import drain_now

                report = await asyncio.to_thread(drain_now)
                log.info("telemetry: %s", report)
            except Exception:  # never the editor's problem
                log.debug("telemetry drain failed", exc_info=True)
        await asyncio.sleep(every)


def start(every: float = EVERY) -> None:
    """Called once the server is initialized (a running event loop)."""
    task = asyncio.get_running_loop().create_task(_keep_sending(every))
    _tasks.add(task)  # a task nobody references may be collected mid-flight
