"""Events waiting for the collector: one file per decision under
`$XDG_STATE_HOME/shellgate/otel-spool/`, written whole (a temporary file renamed), sent oldest
first by whichever process drains (`drain`: the language server every 30 s while it runs, or
the detached `shellgate log drain` a recording process starts), deleted once sent.

Bounded: at most `MAX_FILES` (`SHELLGATE_OTEL_SPOOL_MAX`) wait, give or take the writes
between two looks (a writer looks on one write in 16, a sender every time); past that the
oldest are dropped and counted in `dropped` (`shellgate log drain` prints it, and the next
export carries it as `shellgate.dropped`). After a failed send, nobody starts a sender for
`BACKOFF` seconds (`retry-after`): a collector that is down costs a hook one small file write.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time

from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

MAX_FILES = 10_000
BATCH = 200
BACKOFF = 30.0
STARTING = 1.5  # seconds a started sender has to take the drain lock
YOUNG = 10.0  # seconds: a file that does not parse yet may still be being written
SUFFIX = ".json"


def folder_of(state: str) -> str:
    return os.path.join(state, "otel-spool")


def _max() -> int:
    return int(os.environ.get("SHELLGATE_OTEL_SPOOL_MAX") or MAX_FILES)


def put(folder: str, item: dict[str, Any]) -> None:
    """Keeps one event set; past the bound the oldest are dropped (counted)."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    name = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}{SUFFIX}"
    # Written in place, not renamed (~1 ms on some filesystems): a sender that finds it
    # unfinished leaves it for later (`YOUNG`).
    fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, json.dumps(item, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    finally:
        os.close(fd)
    if os.urandom(1)[0] >= 16:  # the bound is looked at on one write in 16 (and by senders):
        return  # listing the folder costs more than the write itself
    enforce_bound(folder)


def enforce_bound(folder: str) -> None:
    waiting = pending(folder)
    excess = len(waiting) - _max()
    if excess > 0:
        dropped = 0
        for path in waiting[:excess]:
            try:
                os.unlink(path)
                dropped += 1
            except FileNotFoundError:
                pass  # sent (or dropped) meanwhile
        _add_dropped(folder, dropped)


def pending(folder: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(SUFFIX))
    except FileNotFoundError:
        return []
    return [os.path.join(folder, n) for n in names]


def _add_dropped(folder: str, n: int) -> None:
    fd = os.open(os.path.join(folder, "dropped"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        raw = os.read(fd, 64).strip()
        total = (int(raw) if raw.isdigit() else 0) + n
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, str(total).encode())
    finally:
        os.close(fd)


def dropped(folder: str) -> int:
    try:
        with open(os.path.join(folder, "dropped"), encoding="ascii") as fh:
            raw = fh.read().strip()
        return int(raw) if raw.isdigit() else 0
    except OSError:
        return 0


def backing_off(folder: str) -> bool:
    try:
        with open(os.path.join(folder, "retry-after"), encoding="ascii") as fh:
            return time.time() < float(fh.read().strip() or 0)
    except (OSError, ValueError):
        return False


def claim_start(folder: str, within: float = STARTING) -> bool:
    """True for the one caller that may start a sender now: none was started in the last
    `within` seconds (a sender takes a moment to take the drain lock; meanwhile every hook
    would start another)."""
    path = os.path.join(folder, "started")
    try:
        if time.time() - os.stat(path).st_mtime < within:
            return False
    except FileNotFoundError:
        pass
    _write(path, str(os.getpid()))
    return True


def draining(folder: str) -> bool:
    """Another process is sending right now."""
    try:
        fd = os.open(os.path.join(folder, "drain.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


class Drained:
    def __init__(self) -> None:
        self.sent = 0
        self.failed: str | None = None  # why the last send failed
        self.busy = False  # another process holds the drain


def drain(folder: str, send: Callable[[Sequence[dict[str, Any]]], str | None],
          linger: float = 0.0) -> Drained:  # fmt: skip
    """Sends what waits, oldest first, in batches; `send` returns None when the collector took
    the batch, else why not (the batch stays, and senders back off). One drainer at a time;
    `linger`: seconds to wait for more once the spool is empty (a burst of hooks is sent by
    one sender instead of starting one each)."""
    done = Drained()
    while True:
        _drain_locked(folder, send, linger, done)
        # A hook that spooled while the lock was held did not start a sender: look once more.
        if done.busy or done.failed is not None or not pending(folder):
            return done


def _drain_locked(folder: str, send: Callable[[Sequence[dict[str, Any]]], str | None],
                  linger: float, done: Drained) -> None:  # fmt: skip
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(folder, "drain.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            done.busy = True
            return
        enforce_bound(folder)
        idle_until = time.monotonic() + linger
        later: set[str] = set()  # being written as we read: the next drain takes them
        while True:
            batch = [p for p in pending(folder) if p not in later][:BATCH]
            if not batch and time.monotonic() < idle_until:
                time.sleep(0.1)
                continue
            if not batch:
                break
            idle_until = time.monotonic() + linger
            items, paths = [], []
            for path in batch:
                try:
                    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                        items.append(json.load(fh))
                    paths.append(path)
                except FileNotFoundError:
                    continue
                except ValueError:
                    if time.time() - os.path.getmtime(path) < YOUNG:
                        later.add(path)  # a hook is still writing it
                        continue
                    os.unlink(path)  # damaged (a crash mid-write): dropped, counted
                    _add_dropped(folder, 1)
            if not items:
                continue
            why = send(items)
            if why is not None:
                done.failed = why
                _write(os.path.join(folder, "retry-after"), str(time.time() + BACKOFF))
                break
            for path in paths:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            done.sent += len(items)
        if done.failed is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(folder, "retry-after"))
    finally:
        os.close(fd)


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
