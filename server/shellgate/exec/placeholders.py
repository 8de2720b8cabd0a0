"""Clean up the empty mount points bwrap leaves for missing protected paths (`.git`, ...).

A placeholder is removed only when it is still empty and no other live sandbox uses it: removing
a directory another sandbox has mounted over would detach that mount, and the command inside
could then create a real `.git` on the host. Users are counted with marker files in our runtime
directory (outside every writable root, or re-bound read-only), as Codex does.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import itertools
import os
from collections.abc import Iterator, Sequence

from shellgate.exec.sandbox import Protected, default_runtime_dir

_counter = itertools.count()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _locked(markers: str) -> Iterator[None]:
    os.makedirs(markers, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(markers, ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _marker_dir(markers: str, path: str) -> str:
    return os.path.join(markers, hashlib.sha256(path.encode()).hexdigest()[:24])


_CREATED = "created"  # in a marker dir: the placeholder is ours to remove, not the user's


def _empty_dir(path: str) -> bool:
    try:
        return os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path)
    except OSError:
        return False


def acquire(protected: Sequence[Protected]) -> tuple[tuple[str, ...], tuple[Protected, ...]]:
    """Register a sandbox about to start; returns (token, protected paths as they are now).

    Under the lock no cleanup runs, so the kinds re-read here stay true until bwrap has
    mounted them: every path that is missing or an empty directory (maybe another sandbox's
    placeholder) gets our marker, and no cleanup removes it while we live.
    """
    markers = os.path.join(default_runtime_dir(), "mountpoints")
    me = f"{os.getpid()}-{next(_counter)}"
    now: list[Protected] = []
    held: list[str] = []
    with _locked(markers):
        for p in protected:
            exists = os.path.lexists(p.path)
            if exists and not _empty_dir(p.path):
                now.append(Protected(p.path, "exists"))
                continue
            d = _marker_dir(markers, p.path)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, me), "w", encoding="utf-8") as f:
                f.write(p.path)
            if not exists:
                with open(os.path.join(d, _CREATED), "w", encoding="utf-8") as f:
                    f.write(p.path)
            held.append(p.path)
            now.append(Protected(p.path, "exists" if exists else "missing"))
    return (me, *held), tuple(now)


def release(token: tuple[str, ...]) -> None:
    """The sandbox ended: remove the placeholders we created that no live sandbox uses, if
    still empty. Slow-ish (an rmdir right after the mount namespace died costs about a
    millisecond), so the runner calls it off the event loop, after the result is known.
    """
    if len(token) < 2:
        return
    me, *held = token
    markers = os.path.join(default_runtime_dir(), "mountpoints")
    with _locked(markers):
        for path in held:
            d = _marker_dir(markers, path)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(d, me))
            try:
                others = [m for m in os.listdir(d) if m != _CREATED]
            except FileNotFoundError:
                continue
            if any(_pid_alive(int(m.split("-", 1)[0])) for m in others):
                continue
            for stale in others:  # markers of dead processes
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(d, stale))
            if os.path.exists(os.path.join(d, _CREATED)):
                _remove_if_empty(path)
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(d, _CREATED))


def _remove_if_empty(path: str) -> None:
    with contextlib.suppress(OSError):  # not empty, or a file someone wrote: keep it
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        elif os.path.isfile(path) and os.path.getsize(path) == 0:
            os.unlink(path)
