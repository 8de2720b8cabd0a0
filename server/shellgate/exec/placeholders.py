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

from shellgate.exec.sandbox import Protected

_counter = itertools.count()


def runtime_dir() -> str:
    """A private directory for proxy sockets and markers (created 0700)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if not base or not os.path.isdir(base):
        base = (
            "/run"
            if os.geteuid() == 0 and os.path.isdir("/run")
            else os.path.expanduser("~/.cache")
        )
    path = os.path.join(base, "shellgate")
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


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


@contextlib.contextmanager
def placeholders_in_use(protected: Sequence[Protected]) -> Iterator[None]:
    """Register this sandbox as a user of its placeholders; on exit remove the unused empty ones."""
    missing = [p.path for p in protected if p.kind == "missing"]
    if not missing:
        yield
        return
    markers = os.path.join(runtime_dir(), "mountpoints")
    me = f"{os.getpid()}-{next(_counter)}"
    with _locked(markers):
        for path in missing:
            d = os.path.join(markers, hashlib.sha256(path.encode()).hexdigest()[:24])
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, me), "w", encoding="utf-8") as f:
                f.write(path)
    try:
        yield
    finally:
        with _locked(markers):
            for path in missing:
                d = os.path.join(markers, hashlib.sha256(path.encode()).hexdigest()[:24])
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(d, me))
                users = (
                    [m for m in os.listdir(d) if _pid_alive(int(m.split("-", 1)[0]))]
                    if os.path.isdir(d)
                    else []
                )
                if users:
                    continue
                _remove_if_empty(path)
                with contextlib.suppress(OSError):
                    for stale in os.listdir(d):
                        os.unlink(os.path.join(d, stale))
                    os.rmdir(d)


def _remove_if_empty(path: str) -> None:
    with contextlib.suppress(OSError):  # not empty, or a file someone wrote: keep it
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        elif os.path.isfile(path) and os.path.getsize(path) == 0:
            os.unlink(path)
