"""One Codex command hook run as Codex runs it: `/bin/sh -c COMMAND` in the session's cwd,
outside any sandbox, the event as one JSON object on stdin, killed (its whole process group)
at its `timeout`. Every matching hook of an event runs concurrently (spec §6)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shellgate.answer.codex_hooks import CodexHook

OUTPUT_LIMIT = 1 << 20  # a hook's stdout/stderr kept (bytes): a runaway hook cannot fill memory


@dataclass(frozen=True)
class Finished:
    hook: CodexHook
    exit_code: int | None  # None: timed out, or could not start
    stdout: str
    stderr: str
    duration_ms: int
    error: str | None = None  # "hook timed out after Ns", or why it did not start


async def run_hook(
    hook: CodexHook, event: Mapping[str, object], cwd: str, env: Mapping[str, str]
) -> Finished:
    start = time.monotonic()
    data = json.dumps(event, ensure_ascii=False).encode()

    def took() -> int:
        return int((time.monotonic() - start) * 1000)

    try:
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh", "-c", hook.command, cwd=cwd, env=dict(env),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        return Finished(hook, None, "", "", took(), f"hook could not start: {exc}")
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), hook.timeout)
    except TimeoutError:
        _kill(proc)
        await proc.wait()
        return Finished(hook, None, "", "", took(), f"hook timed out after {hook.timeout}s")
    except asyncio.CancelledError:
        _kill(proc)
        raise
    return Finished(hook, proc.returncode, _text(out), _text(err), took())


async def run_all(
    hooks: Sequence[CodexHook], event: Mapping[str, object], cwd: str, env: Mapping[str, str]
) -> tuple[Finished, ...]:
    """Every hook at once; the results in declared order (not finishing order)."""
    return tuple(await asyncio.gather(*(run_hook(h, event, cwd, env) for h in hooks)))


def detach(
    hooks: Sequence[CodexHook], event: Mapping[str, object], cwd: str, env: Mapping[str, str]
) -> None:
    """`async = true` hooks: started with the event on stdin and left to run; a daemon thread
    kills each one's process group at its timeout. Output is discarded: Codex queues an async
    hook's context for the next user turn and ignores its decisions."""
    data = json.dumps(event, ensure_ascii=False).encode()
    for hook in hooks:
        try:
            proc = subprocess.Popen(["/bin/sh", "-c", hook.command], cwd=cwd, env=dict(env),
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        except OSError:
            continue  # Codex logs it and goes on: an async hook cannot change the outcome
        threading.Thread(target=_feed_and_reap, args=(proc, data, hook.timeout),
                         daemon=True).start()  # fmt: skip


def _feed_and_reap(proc: subprocess.Popen[bytes], data: bytes, timeout: int) -> None:
    try:
        proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except OSError:  # it exited before reading its stdin
        proc.wait()


def _text(raw: bytes) -> str:
    return raw[:OUTPUT_LIMIT].decode("utf-8", "replace")


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
