"""git's configuration files for a command's directory, read as git reads them (I/O).

Which files, in git's order: `shell.git_paths` (the system file, the global ones, the
repository's found from the cwd, `-C` and `--git-dir`/`GIT_DIR`, a worktree's); each with its
`include.path` and `includeIf.<cond>.path` files in place, every condition taken as true
(stricter: more keys judged).

Parsed here (`git_format.parse_config`) rather than by running `git config --list -z
--show-origin`: a process costs milliseconds and would run git (and whatever its environment
names) inside the gate; the format is small, and tests compare this reading with git's own on
files git wrote. Files are
read only when a command runs git (`GitConfigFiles.items()`), each parsed once per process for
a given size and mtime. A line this parser cannot read gives the key `?` (asked: git itself
would stop there). Never raises.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache

from shellgate.shell import git_paths
from shellgate.shell.programs.git_format import parse_config

_ENV = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_NOSYSTEM", "GIT_DIR")  # fmt: skip
_MAX_INCLUDE = 10  # git's own depth limit
_Entries = tuple[tuple[str, str, str], ...]  # (key, value, origin "path:line")


class GitConfigFiles:
    """The configuration git reads for a command run in `cwd` (after `chdirs`, with `git_dir`)
    under the environment `env` (the gate's own: the variables above). Immutable, hashable
    on those four; the entries are read on the first `items()` or `origins()`. (A plain class:
    a dataclass costs a millisecond at every hook start that meets git.)"""

    __slots__ = ("_entries_read", "chdirs", "cwd", "env", "git_dir")

    def __init__(
        self,
        cwd: str,
        env: tuple[tuple[str, str], ...],
        chdirs: tuple[str, ...] = (),
        git_dir: str | None = None,
    ) -> None:
        self.cwd, self.env, self.chdirs, self.git_dir = cwd, env, chdirs, git_dir
        self._entries_read: _Entries | None = None

    def _key(self) -> tuple[object, ...]:
        return (self.cwd, self.env, self.chdirs, self.git_dir)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitConfigFiles) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"GitConfigFiles{self._key()!r}"

    def items(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, v) for k, v, _ in self._entries())

    def origins(self) -> tuple[str, ...]:
        return tuple(o for _, _, o in self._entries())

    def at(self, chdirs: tuple[str, ...], git_dir: str | None) -> GitConfigFiles:
        return GitConfigFiles(self.cwd, self.env, self.chdirs + chdirs, git_dir or self.git_dir)

    def _entries(self) -> _Entries:
        if self._entries_read is None:
            entries: list[tuple[str, str, str]] = []
            for path in config_paths(self):
                entries += _with_includes(path, 0)
            self._entries_read = tuple(entries)
        return self._entries_read


def git_files(cwd: str, environ: Mapping[str, str]) -> GitConfigFiles:
    """The reading for commands run in `cwd` under `environ`; nothing is read yet."""
    return GitConfigFiles(cwd, tuple((k, environ[k]) for k in _ENV if k in environ))


def config_paths(files: GitConfigFiles) -> list[str]:
    """The files git reads, in order (some may not exist)."""
    return git_paths.config_paths(files.cwd, dict(files.env), files.chdirs, files.git_dir)


def _with_includes(path: str, depth: int) -> list[tuple[str, str, str]]:
    """The entries of `path` with its included files' in place."""
    out: list[tuple[str, str, str]] = []
    for key, value, origin in _file(path):
        out.append((key, value, origin))
        included = key == "include.path" or (key.startswith("includeif.") and key.endswith(".path"))
        if included and value and depth < _MAX_INCLUDE:
            target = os.path.expanduser(value)
            if not os.path.isabs(target):
                target = os.path.join(os.path.dirname(path), target)
            out += _with_includes(target, depth + 1)
    return out


def _file(path: str) -> _Entries:
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return _parsed(path, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=64)
def _parsed(path: str, mtime_ns: int, size: int) -> _Entries:
    del mtime_ns, size  # the cache's key: a file changed is read again
    text = git_paths.read_text(path)
    return () if text is None else parse_config(text, path)
