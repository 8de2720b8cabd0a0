"""One attempt: run a command under a sandbox spec (or none), with a timeout and cancel.

The child gets its own process group (so the tree can be killed) and, under bwrap, its own pid
namespace with `--die-with-parent`. bwrap's `--json-status-fd` tells us whether the command ran
at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import IO

from shellgate.exec import placeholders, seccomp
from shellgate.exec.denial import Classification, classify
from shellgate.exec.network import NetworkProxy, bridge_command, proxy_env
from shellgate.exec.probe import SandboxProbe
from shellgate.exec.process import kill_tree
from shellgate.exec.sandbox import NetworkAccess, SandboxSpec, bwrap_argv

MAX_OUTPUT = 4 * 1024 * 1024  # per stream; the rest is dropped and said so


@dataclass(frozen=True)
class AttemptResult:
    exit_code: int | None
    stdout: str
    stderr: str
    sandboxed: bool
    timed_out: bool
    duration: float
    classification: Classification
    blocked_hosts: tuple[str, ...] = ()


async def _exited(pid: int) -> None:
    """Wait for the process to exit (its pidfd turns readable), without reaping it."""
    loop = asyncio.get_running_loop()
    pidfd = os.pidfd_open(pid)
    try:
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(pidfd, _wake, ready)
        try:
            await ready
        finally:
            loop.remove_reader(pidfd)
    finally:
        os.close(pidfd)


async def _read_fd(stream: IO[bytes]) -> bytes:
    """Everything until EOF, at most MAX_OUTPUT kept; closes the stream."""
    loop = asyncio.get_running_loop()
    fd = stream.fileno()
    os.set_blocking(fd, False)
    buf = bytearray()
    try:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                ready: asyncio.Future[None] = loop.create_future()
                loop.add_reader(fd, _wake, ready)
                try:
                    await ready
                finally:
                    loop.remove_reader(fd)
                continue
            if not chunk:
                break
            if len(buf) < MAX_OUTPUT:
                buf += chunk[: MAX_OUTPUT - len(buf)]
    finally:
        stream.close()
    if len(buf) >= MAX_OUTPUT:
        buf += b"\n[output truncated]\n"
    return bytes(buf)


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def _feed(pipe: IO[bytes], data: bytes) -> None:
    with contextlib.suppress(OSError):
        pipe.write(data)
    with contextlib.suppress(OSError):
        pipe.close()


def _drain_status(fd: int) -> list[dict[str, object]]:
    os.set_blocking(fd, False)
    data = b""
    with contextlib.suppress(BlockingIOError, OSError):
        while chunk := os.read(fd, 65536):
            data += chunk
    records: list[dict[str, object]] = []
    decoder = json.JSONDecoder()
    text, i = data.decode("utf-8", "replace"), 0
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        try:
            obj, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            break
        if isinstance(obj, dict):
            records.append(obj)
    return records


_cleanups: set[asyncio.Future[None]] = set()


def _release_later(token: tuple[str, ...]) -> None:
    """Placeholder cleanup off the event loop: the caller has its result already."""
    if len(token) < 2:
        return
    fut = asyncio.get_running_loop().run_in_executor(None, placeholders.release, token)
    _cleanups.add(fut)
    fut.add_done_callback(_cleanups.discard)


async def run_attempt(
    command: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str] | None = None,
    spec: SandboxSpec | None,
    probe: SandboxProbe | None = None,
    proxy: NetworkProxy | None = None,
    once_hosts: Sequence[str] = (),
    timeout: float | None = None,
    stdin: bytes | None = None,
) -> AttemptResult:
    """Run once. `spec=None` runs without a sandbox (full access or an approved escalation)."""
    start = time.monotonic()
    full_env = dict(os.environ if env is None else env)
    if spec is None:
        return await _spawn(
            list(command), cwd, full_env, (), None, timeout, stdin, start, None, None
        )
    if probe is None or not probe.ok or probe.bwrap is None:
        raise RuntimeError("run_attempt: a sandboxed attempt needs a working sandbox probe")
    async with contextlib.AsyncExitStack() as stack:
        cmd = list(command)
        tag: str | None = None
        if spec.network is NetworkAccess.PROXY:
            if proxy is None:
                raise RuntimeError("run_attempt: network by host needs the proxy")
            tag, sock = await stack.enter_async_context(proxy.listener(once_hosts))
            cmd = bridge_command(sock, cmd)
            full_env.update(proxy_env())
        # The protected paths as they are now, held so that no cleanup removes them under us.
        token, protected = placeholders.acquire(spec.protected)
        stack.callback(_release_later, token)
        spec = replace(spec, protected=protected)
        sc_r, sc_w = os.pipe()
        st_r, st_w = os.pipe()
        # Each fd is closed exactly once: a second close could hit a concurrent attempt's fd
        # that reused the number.
        owned = {sc_r, st_r, st_w}
        try:
            os.write(sc_w, seccomp.bpf_bytes(spec.socket_filter))
            os.close(sc_w)
            argv = bwrap_argv(
                probe.bwrap, spec, cmd, status_fd=st_w, seccomp_fd=sc_r, use_proc=probe.use_proc
            )
            return await _spawn(
                argv, spec.cwd, full_env, (st_w, sc_r), st_r, timeout, stdin, start, proxy, tag,
                owned,
            )  # fmt: skip
        finally:
            for fd in owned:
                with contextlib.suppress(OSError):
                    os.close(fd)


async def _spawn(
    argv: list[str],
    cwd: str,
    env: dict[str, str],
    pass_fds: tuple[int, ...],
    status_fd: int | None,
    timeout: float | None,
    stdin: bytes | None,
    start: float,
    proxy: NetworkProxy | None,
    tag: str | None,
    owned: set[int] | None = None,
) -> AttemptResult:
    sandboxed = status_fd is not None
    try:
        # Popen + a pidfd on the event loop: asyncio's default child watcher (a thread per
        # child on 3.11) adds milliseconds to every command.
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            pass_fds=pass_fds,
            start_new_session=True,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as e:  # missing program, bad cwd: the command failed, nothing was denied
        msg = f"shellgate: cannot run {argv[0]}: {e.strerror or e}\n"
        return AttemptResult(
            127,
            "",
            msg,
            sandboxed,
            False,
            time.monotonic() - start,
            classify(exit_code=127, output=msg, sandboxed=False, saw_exit_record=True),
        )
    for fd in pass_fds:  # the child has them now; our copies would keep the status pipe open
        os.close(fd)
        if owned is not None:
            owned.discard(fd)
    assert proc.stdout is not None and proc.stderr is not None
    loop = asyncio.get_running_loop()
    if proc.stdin is not None:
        feeding = loop.run_in_executor(None, _feed, proc.stdin, stdin or b"")
    out_task = asyncio.ensure_future(_read_fd(proc.stdout))
    err_task = asyncio.ensure_future(_read_fd(proc.stderr))
    timed_out = False
    try:
        await asyncio.wait_for(_exited(proc.pid), timeout)
    except TimeoutError:
        timed_out = True
        kill_tree(proc.pid)
    except asyncio.CancelledError:
        kill_tree(proc.pid)
        proc.wait()  # SIGKILLed: immediate
        out_task.cancel()
        err_task.cancel()
        raise
    proc.wait()  # reap; it has exited (or was SIGKILLed just now)
    if proc.stdin is not None:
        await feeding
    # A daemon that escaped an unsandboxed run may hold the pipes: don't wait for it forever.
    done, pending = await asyncio.wait({out_task, err_task}, timeout=2)
    for t in pending:
        t.cancel()
    stdout = out_task.result().decode("utf-8", "replace") if out_task in done else ""
    stderr = err_task.result().decode("utf-8", "replace") if err_task in done else ""
    records = _drain_status(status_fd) if status_fd is not None else []
    exit_record = next((r for r in records if "exit-code" in r), None)
    code = proc.returncode
    if exit_record is not None and isinstance(exit_record["exit-code"], int):
        code = exit_record["exit-code"]
    elif sandboxed and "bwrap: execvp" in stderr:
        code = 127  # bwrap says 1 for a missing program; keep the shell's convention
    elif code is not None and code < 0:
        code = 128 - code  # killed by a signal, shell convention
    blocked = tuple(e.host for e in proxy.events_for(tag) if not e.allowed) if proxy and tag else ()
    cls = classify(
        exit_code=code,
        output=stdout + "\n" + stderr,
        sandboxed=sandboxed,
        saw_exit_record=exit_record is not None or not sandboxed,
        blocked_hosts=blocked,
        timed_out=timed_out,
    )
    return AttemptResult(
        code, stdout, stderr, sandboxed, timed_out, time.monotonic() - start, cls, blocked
    )
