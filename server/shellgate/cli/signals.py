"""A command that runs something sandboxed stops cleanly when its caller stops it.

SIGTERM (an agent's timeout), SIGHUP (a closed terminal) and SIGINT cancel the work instead of
ending the interpreter at once: the command's process tree is killed, and the mount points
bwrap made on the host for missing `.git`, `.codex` and `.agents` are removed before the exit
(dying at once left them behind as empty folders, and a folder holding them is a project root
to Codex).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
STOPPING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


async def until_signalled(work: Coroutine[Any, Any, T]) -> T | signal.Signals:
    """The work's result, or the signal that stopped it (the shell's status is 128 + it)."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    got: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        got.append(sig)
        task.cancel()

    for sig in STOPPING:
        loop.add_signal_handler(sig, stop, sig)
    try:
        return await task
    except asyncio.CancelledError:
        if not got:
            raise
        return got[0]
    finally:
        for sig in STOPPING:
            loop.remove_signal_handler(sig)
