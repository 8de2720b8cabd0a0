"""Which configuration files git reads for a command run in a directory (I/O: a few stats).

Kept apart from `shell.programs.git_files` (which parses them) and free of heavy imports
(only `os`): the hook's decision memo keys a git command on these files' bytes at every hook
start (`hooks.memo`), where importing the programs package would cost milliseconds.

In git's order: the system file (`GIT_CONFIG_SYSTEM`, else /etc/gitconfig; none with
`GIT_CONFIG_NOSYSTEM`), the global ones (`GIT_CONFIG_GLOBAL`, else
`$XDG_CONFIG_HOME/git/config` and `~/.gitconfig`), the repository's `config` (in its common
directory: a worktree's `commondir`) and the worktree's `config.worktree`. The repository is
found from the directory upwards (a `.git` directory, a `.git` file naming one, a bare
repository), or named by `--git-dir`/`GIT_DIR`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

_FALSE = frozenset({"", "0", "false", "no", "off"})


def config_paths(
    cwd: str, env: Mapping[str, str], chdirs: Sequence[str] = (), git_dir: str | None = None
) -> list[str]:
    """The files git reads, in order (some may not exist; /dev/null left out)."""
    home = env.get("HOME", "")
    paths: list[str] = []
    if env.get("GIT_CONFIG_NOSYSTEM", "").strip().lower() in _FALSE:
        paths.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if "GIT_CONFIG_GLOBAL" in env:
        paths.append(env["GIT_CONFIG_GLOBAL"])
    else:
        xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
        paths += [os.path.join(xdg, "git", "config")] if xdg else []
        paths += [os.path.join(home, ".gitconfig")] if home else []
    where = cwd
    for d in chdirs:
        where = os.path.join(where, os.path.expanduser(d))
    git_dir = git_dir or env.get("GIT_DIR")
    found = os.path.join(where, git_dir) if git_dir else discover(where)
    if found is not None:
        common = found
        commondir = read_text(os.path.join(found, "commondir"))
        if commondir is not None and commondir.strip():
            common = os.path.join(found, commondir.strip())
        paths += [os.path.join(common, "config"), os.path.join(found, "config.worktree")]
    return [p for p in paths if p and p != "/dev/null"]


def discover(start: str) -> str | None:
    """The git directory git finds from `start`: `.git` (a directory, or a file naming one) in
    it or a parent, or a bare repository."""
    d = os.path.abspath(start)
    while True:
        dot = os.path.join(d, ".git")
        if os.path.isdir(dot):
            return dot
        if os.path.isfile(dot):
            text = (read_text(dot) or "").strip()
            return os.path.join(d, text[7:].strip()) if text.startswith("gitdir:") else None
        if os.path.isfile(os.path.join(d, "HEAD")) and os.path.isdir(os.path.join(d, "objects")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError:
        return None
