"""The local record: one append-only log of decisions per user, each line chained to the one
before by a hash, so that an edited, removed or reordered entry is found (`verify.py` reads and
checks it; this module is what a hook imports to append).

Where: `$XDG_STATE_HOME/shellgate/` (else `~/.local/state/shellgate/`), mode 0700; files 0600:
`decisions.jsonl` (the newest), `decisions.1.jsonl` ... `decisions.3.jsonl` (rotated: at
`MAX_BYTES` the current file moves to `.1`, and the oldest beyond `KEEP` is deleted; the chain
goes on across files), `decisions.head` (the last entry's seq and hash, so that entries cut off
the end are found too) and `decisions.lock`.

One line: `{"seq": N, "prev": HASH_OF_N-1, "entry": {...}, "hash": H}` with H = sha256 of the
line's canonical JSON without "hash". Appends happen under an exclusive `flock` of the lock
file, as one `write` of a whole line to a file opened O_APPEND, so concurrent hooks never
interleave or half-write a line. Not fsynced by default: the line is in the kernel when the
hook answers, and only a crash of the machine could lose the last ones (`verify` then names
the torn line); `SHELLGATE_LOG_FSYNC=1` fsyncs every entry (~1-10 ms on most disks).

What it does not do: a person with write access can rewrite the whole chain consistently. The
hash of every entry is also exported (`shellgate.record.hash`) when telemetry is on, so a
collector holds the anchors.
"""

from __future__ import annotations

import fcntl
import json
import os

from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

try:  # the built-in SHA-256: hashlib loads OpenSSL (2-5 ms of a hook's start-up)
    from _sha256 import sha256
except ImportError:  # Python 3.12+
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

NAME = "decisions"
KEEP = 3
MAX_BYTES = 8 * 1024 * 1024
GENESIS = "0" * 64
_TAIL = 256 * 1024


def state_dir(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".local", "state")  # fmt: skip
    return os.path.join(base, "shellgate")


def files(folder: str) -> list[str]:
    """The log's files, oldest first."""
    older = [os.path.join(folder, f"{NAME}.{i}.jsonl") for i in range(KEEP, 0, -1)]
    return [p for p in [*older, os.path.join(folder, f"{NAME}.jsonl")] if os.path.exists(p)]


def digest(seq: int, prev: str, entry: Mapping[str, Any]) -> str:
    body = json.dumps({"seq": seq, "prev": prev, "entry": entry}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)  # fmt: skip
    return str(sha256(body.encode("utf-8", "surrogatepass")).hexdigest())


def append(entry: Mapping[str, Any], folder: str | None = None) -> tuple[int, str]:
    """Appends one entry; returns its (seq, hash). Raises OSError when the log cannot be
    written (the caller reports it; a decision never waits on it)."""
    folder = state_dir() if folder is None else folder
    os.makedirs(folder, mode=0o700, exist_ok=True)
    current = os.path.join(folder, f"{NAME}.jsonl")
    lock = os.open(os.path.join(folder, f"{NAME}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        seq, prev = _last(current, folder)
        limit = int(os.environ.get("SHELLGATE_LOG_MAX_BYTES") or MAX_BYTES)
        try:
            if os.path.getsize(current) >= limit:
                _rotate(folder)
        except FileNotFoundError:
            pass
        seq += 1
        entry = dict(entry)
        mark = digest(seq, prev, entry)
        line = {"seq": seq, "prev": prev, "entry": entry, "hash": mark}
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode(
            "utf-8", "surrogatepass")  # fmt: skip
        fd = os.open(current, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # after a torn line (a crash): the new entry stands alone
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if os.environ.get("SHELLGATE_LOG_FSYNC") == "1":
                os.fsync(fd)
        finally:
            os.close(fd)
        _write_head(folder, seq, mark)
        return seq, mark
    finally:
        os.close(lock)  # releases the flock


def _last(current: str, folder: str) -> tuple[int, str]:
    """The last entry's (seq, hash): the current file's tail, else the head file (a rotation
    left the current file empty or absent)."""
    for path in (current, *reversed(files(folder))):
        line = _tail_line(path)
        if line is not None:
            try:
                last = json.loads(line)
                return int(last["seq"]), str(last["hash"])
            except (ValueError, KeyError, TypeError):
                break  # a torn or edited last line: the head says where the chain was
    head = read_head(folder)
    return head if head is not None else (0, GENESIS)


def _tail_line(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        start = max(0, size - _TAIL)
        while True:
            os.lseek(fd, start, os.SEEK_SET)
            chunk = os.read(fd, size - start)
            body = chunk.rstrip(b"\n")
            cut = body.rfind(b"\n")
            if cut >= 0 or start == 0:
                return body[cut + 1:]
            start = max(0, start - _TAIL)
    finally:
        os.close(fd)


def _rotate(folder: str) -> None:
    oldest = os.path.join(folder, f"{NAME}.{KEEP}.jsonl")
    if os.path.exists(oldest):
        os.unlink(oldest)
    for i in range(KEEP - 1, 0, -1):
        src = os.path.join(folder, f"{NAME}.{i}.jsonl")
        if os.path.exists(src):
            os.replace(src, os.path.join(folder, f"{NAME}.{i + 1}.jsonl"))
    os.replace(os.path.join(folder, f"{NAME}.jsonl"), os.path.join(folder, f"{NAME}.1.jsonl"))


def _write_head(folder: str, seq: int, digest_: str) -> None:
    """Rewritten in place, one fixed-length write (a rename costs ~1 ms on some filesystems,
    a third of a hook's record)."""
    fd = os.open(os.path.join(folder, f"{NAME}.head"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, f"{seq:020d} {digest_}\n".encode(), 0)
    finally:
        os.close(fd)


def read_head(folder: str) -> tuple[int, str] | None:
    try:
        with open(os.path.join(folder, f"{NAME}.head"), encoding="ascii") as fh:
            seq, digest_ = fh.read().split()
        return int(seq), digest_
    except (OSError, ValueError):
        return None
