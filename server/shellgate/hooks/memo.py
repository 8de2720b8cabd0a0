"""Decisions kept on disk, so that a hook for a command already judged pays Python's start-up and
little else (the chain's imports alone cost several times that).

The key is everything a decision depends on: the request, HOME and CODEX_HOME, the bytes of
every rules file, config.toml and requirements.toml Codex could load for the cwd (the admin's
`/etc/codex`, the user's, and each ancestor's `.codex/`), which ancestors hold a project root
marker (`.git`, or config.toml's `project_root_markers`: a new one moves the project root), and
ShellGate's decision code. A linked worktree (`.git` file) is never kept: its project may live
outside the ancestors. A command that may run git also keys on what git's configuration files
say for the cwd (`shell.programs.git_files`: an alias written into `.git/config` changes the
decision). Only decisions on rules that loaded are kept, as marshal data (nothing
in the cache can run code), under `$XDG_CACHE_HOME/shellgate/decisions/`, the layer cache's
neighbour. Entries unused for two weeks are pruned now and then. SHELLGATE_NO_CACHE=1 turns it
off.

Bounded: a decision larger than MAX_ENTRY (a command of tens of kilobytes; explain repeats it)
is not kept, it is decided afresh each time; and now and then, when the folder holds more than
MAX_TOTAL, the least recently used entries go first (an entry is ~1-2 KB: ~10 000 fit).
"""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Mapping

from shellgate.codexconfig import SYSTEM_FOLDER, codex_home_folder
from shellgate.records import TYPE_CHECKING
from shellgate.shell.git_paths import config_paths

if TYPE_CHECKING:
    from typing import Any

try:  # hashlib would load OpenSSL first (milliseconds at every hook start) for a built-in hash
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

_VERSION = b"shellgate-hook-memo-2"
_CODE = ("rules", "shell", "shell/programs", "approval", "explain", "hooks", "broker",
         "codexconfig")  # fmt: skip


def _code_stamp(h: Any) -> None:
    base = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for package in _CODE:
        folder = os.path.join(base, package)
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".py"))
        except FileNotFoundError:
            continue
        for name in names:
            h.update(
                b"%s/%s:%d\0"
                % (package.encode(), name.encode(), os.stat(os.path.join(folder, name)).st_mtime_ns)
            )


def _file(h: Any, path: str) -> None:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        h.update(b"-%s\0" % os.fsencode(path))
        return
    h.update(b"+%s\0%d\0" % (os.fsencode(path), len(data)))
    h.update(data)


def _rules_folder(h: Any, folder: str) -> None:
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        h.update(b"-%s\0" % os.fsencode(folder))
        return
    h.update(b"d%s\0" % os.fsencode(folder))
    for name in names:
        path = os.path.join(folder, name)
        h.update(b"l%d\0" % os.path.islink(path))
        if os.path.isfile(path):
            _file(h, path)


def _markers(config: str) -> tuple[str, ...] | None:
    """The root markers Codex looks for (None: config.toml unreadable as TOML; no memo)."""
    try:
        with open(config, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return (".git",)
    if b"project_root_markers" not in data:
        return (".git",)
    # deferred: tomllib (~8 ms) only when config.toml sets project_root_markers
    import tomllib

    try:
        value = tomllib.loads(data.decode()).get("project_root_markers")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        return None
    return (".git", *value)


def path_for(request_key: bytes, cwd: str, env: Mapping[str, str]) -> str | None:
    """Where the decision for `request_key` (the request, serialised) is kept; None: never."""
    if env.get("SHELLGATE_NO_CACHE") or not os.path.isabs(cwd) or len(request_key) > MAX_ENTRY:
        return None  # a huge command: its decision would not be kept anyway
    h = blake2b(_VERSION, digest_size=32)
    try:
        _code_stamp(h)
        home = env.get("HOME", "")
        codex_home = codex_home_folder(env)
        h.update(b"%s\0%s\0%s\0" % (os.fsencode(home), os.fsencode(codex_home), request_key))
        # the admin's tier: its rules, requirements and config
        _rules_folder(h, os.path.join(SYSTEM_FOLDER, "rules"))
        _file(h, os.path.join(SYSTEM_FOLDER, "requirements.toml"))
        _file(h, os.path.join(SYSTEM_FOLDER, "config.toml"))
        _rules_folder(h, os.path.join(codex_home, "rules"))
        markers = _markers(os.path.join(codex_home, "config.toml"))
        if markers is None:
            return None
        _file(h, os.path.join(codex_home, "config.toml"))
        if b"git" in request_key and not _git_config(h, request_key, cwd, env):
            return None
        folder = os.path.normpath(cwd)
        while True:
            found = [m for m in markers if os.path.lexists(os.path.join(folder, m))]
            h.update(b"f%s\0%s\0" % (os.fsencode(folder), repr(found).encode()))
            if os.path.isfile(os.path.join(folder, ".git")):
                return None
            _rules_folder(h, os.path.join(folder, ".codex", "rules"))
            _file(h, os.path.join(folder, ".codex", "config.toml"))
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    except OSError:
        return None
    return os.path.join(cache_dir(env), "decisions", h.hexdigest())


def _git_config(h: Any, request_key: bytes, cwd: str, env: Mapping[str, str]) -> bool:
    """git's configuration files for the cwd, on which a command running git is judged (its
    aliases and commands): their bytes, and with an include what the files say, includes
    followed. False (never kept) when the command may read another repository's (`-C`,
    `--git-dir`, `GIT_DIR`)."""
    if any(flag in request_key for flag in (b"-C", b"--git-dir", b"GIT_DIR")):
        return False
    included = False
    for path in config_paths(cwd, env):
        h.update(b"g%s\0" % os.fsencode(path))
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        h.update(data)
        included = included or b"include" in data.lower()
    if included:
        from shellgate.shell.programs.git_files import git_files  # deferred: includes (~20 ms)

        files = git_files(cwd, env)
        h.update(repr((files.items(), files.origins())).encode("utf-8", "surrogateescape"))
    return True


def cache_dir(env: Mapping[str, str]) -> str:
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shellgate")


def load(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            value = marshal.loads(fh.read())  # load(fh) reads the file object piece by piece
        os.utime(path)  # in use: pruning keeps it
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


MAX_ENTRY = 64 * 1024
MAX_TOTAL = 16 * 1024 * 1024
KEEP_SECONDS = 14 * 24 * 3600


def store(path: str, value: dict[str, Any]) -> None:
    try:
        data = marshal.dumps(value)
    except ValueError:
        return
    if len(data) > MAX_ENTRY:
        return
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)  # readers never see half a file
    except OSError:
        return
    if int.from_bytes(os.urandom(1), "big") < 8:  # now and then: forget what went unused
        _prune(os.path.dirname(path))


def _prune(folder: str, max_total: int = MAX_TOTAL) -> None:
    """Remove entries not read or written for KEEP_SECONDS (a hit refreshes its mtime), then
    the least recently used ones while the rest weigh more than `max_total`."""

    cutoff = time.time() - KEEP_SECONDS
    kept: list[tuple[float, int, str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    st = entry.stat()
                    if st.st_mtime < cutoff:
                        os.unlink(entry.path)
                    else:
                        kept.append((st.st_mtime, st.st_size, entry.path))
                except OSError:
                    pass
    except OSError:
        return
    total = sum(size for _, size, _ in kept)
    for _, size, path in sorted(kept):
        if total <= max_total:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
