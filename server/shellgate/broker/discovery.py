"""Which running server holds a folder: one discovery file per server in the runtime folder.

`$XDG_RUNTIME_DIR/shellgate/` (else `/tmp/shellgate-<uid>/`): a folder 0700 that the user owns
and that is not a symlink, or it is not used at all. Each server writes `server-<pid>.json`
(pid, workspace folders, socket, version, protocol) next to its socket `server-<pid>.sock`.
A client picks the server whose workspace folder is the deepest one holding its cwd; files of
dead processes are ignored and removed. Standard library only (the hooks import it).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat

from shellgate.records import Record

PREFIX = "server-"


class RuntimeDirError(OSError):
    """The runtime folder is missing, not ours, or open to others: it must not be used."""


class ServerInfo(Record):
    pid: int
    workspace_folders: tuple[str, ...]
    socket: str
    version: str
    protocol: int
    path: str  # the discovery file

    def to_json(self) -> dict[str, object]:
        return {
            "pid": self.pid,
            "workspaceFolders": list(self.workspace_folders),
            "socket": self.socket,
            "version": self.version,
            "protocol": self.protocol,
        }


def runtime_dir() -> str:
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isabs(base):
        return os.path.join(base, "shellgate")
    return os.path.join("/tmp", f"shellgate-{os.getuid()}")


def ensure_runtime_dir() -> str:
    """The runtime folder, created 0700 when missing; RuntimeDirError if it is not private."""
    folder = runtime_dir()
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    check_runtime_dir(folder)
    return folder


def check_runtime_dir(folder: str) -> None:
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise RuntimeDirError(f"{folder} is not a folder (a symlink?): refusing to use it")
    if st.st_uid != os.getuid():
        raise RuntimeDirError(f"{folder} belongs to uid {st.st_uid}, not to us: refusing it")
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise RuntimeDirError(
            f"{folder} is open to others (mode {stat.S_IMODE(st.st_mode):o}, needs 700)"
        )


def write_info(info: ServerInfo) -> None:
    """Written whole or not at all (readers never see half a file), mode 0600."""
    tmp = f"{info.path}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(info.to_json(), fh)
    os.replace(tmp, info.path)


def info_path(folder: str, pid: int) -> str:
    return os.path.join(folder, f"{PREFIX}{pid}.json")


def socket_path(folder: str, pid: int) -> str:
    return os.path.join(folder, f"{PREFIX}{pid}.sock")


def remove_own(info: ServerInfo, socket_inode: int | None) -> None:
    """Remove this process's discovery file and socket, and nothing else: the file only while
    it still names this pid (a forked child exiting must not take its parent's), the socket
    only while it is the one this process bound (same inode)."""
    if info.pid != os.getpid():
        return
    current = _read(info.path)
    if current is not None and current.pid == info.pid:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(info.path)
    with contextlib.suppress(OSError):
        st = os.lstat(info.socket)
        if stat.S_ISSOCK(st.st_mode) and st.st_ino == socket_inode:
            os.unlink(info.socket)


def servers() -> list[ServerInfo]:
    """The live servers; stale files (a dead pid, a missing socket, bad JSON) are removed."""
    folder = runtime_dir()
    try:
        check_runtime_dir(folder)
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        if not (name.startswith(PREFIX) and name.endswith(".json")):
            continue
        path = os.path.join(folder, name)
        info = _read(path)
        if info is None or not _alive(info):
            _remove_stale(path, info)
            continue
        found.append(info)
    return found


def find_server(cwd: str) -> ServerInfo | None:
    """The server whose deepest workspace folder holds `cwd` (the newest file on a tie)."""
    here = os.path.realpath(cwd)
    best: tuple[int, float, ServerInfo] | None = None
    for info in servers():
        for folder in info.workspace_folders:
            root = os.path.realpath(folder)
            if here == root or here.startswith(root.rstrip("/") + "/"):
                depth = len(root.rstrip("/").split("/"))
                try:
                    mtime = os.stat(info.path).st_mtime
                except OSError:
                    continue
                if best is None or (depth, mtime) > best[:2]:
                    best = (depth, mtime, info)
    return None if best is None else best[2]


def _read(path: str) -> ServerInfo | None:
    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
        folders = raw["workspaceFolders"]
        info = ServerInfo(
            pid=int(raw["pid"]),
            workspace_folders=tuple(str(f) for f in folders),
            socket=str(raw["socket"]),
            version=str(raw["version"]),
            protocol=int(raw["protocol"]),
            path=path,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return info if isinstance(folders, list) else None


def _alive(info: ServerInfo) -> bool:
    try:
        os.kill(info.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # another user's process reusing the pid: not our server
    try:
        with open(f"/proc/{info.pid}/stat", "rb") as fh:
            if fh.read().rsplit(b")", 1)[-1].split()[0] == b"Z":
                return False  # exited, not yet reaped
    except (OSError, IndexError):
        pass
    return os.path.exists(info.socket)


def _remove_stale(path: str, info: ServerInfo | None) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
    if info is not None and os.path.dirname(info.socket) == os.path.dirname(path):
        with contextlib.suppress(OSError):
            os.unlink(info.socket)  # only a socket next to its file: never a path elsewhere
