"""git's configuration files for a command's directory, read as git reads them (I/O).

Which files, in git's order: `shell.git_paths` (the system file, the global ones, the
repository's found from the cwd, `-C` and `--git-dir`/`GIT_DIR`, a worktree's); each with its
`include.path` and `includeIf.<cond>.path` files in place, every condition taken as true
(stricter: more keys judged).

Parsed here rather than by running `git config --list -z --show-origin`: a process costs
milliseconds and would run git (and whatever its environment names) inside the gate; the
format is small, and tests compare this reading with git's own on files git wrote. Files are
read only when a command runs git (`GitConfigFiles.items()`), each parsed once per process for
a given size and mtime. A line this parser cannot read gives the key `?` (asked: git itself
would stop there). Never raises.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache

from shellgate.shell import git_paths

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


_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\\n]|\\.)*)")?\s*\]')
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_UNESCAPE = re.compile(r"\\(.)")


def parse_config(text: str, path: str) -> _Entries:
    """The (key, value, origin) entries of a configuration file's text, as git's parser reads
    it: `[section]`, `[section "sub"]`, `[section.sub]`; `key = value` with quotes, escapes,
    comments and continuation lines; a bare `key` is true. On a line git would reject: the
    entries before it and a `?` entry naming it."""
    out: list[tuple[str, str, str]] = []
    section: str | None = None
    text = text.removeprefix("\ufeff")
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif c in "#;":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c == "[":
            m = _SECTION.match(text, i)
            if m is None:
                return (*out, ("?", "", f"{path}:{line}"))
            name, sub = m.group(1), m.group(2)
            if sub is not None:
                section = name.lower() + "." + _UNESCAPE.sub(r"\1", sub)
            else:
                head, dot, rest = name.partition(".")
                section = f"{head.lower()}.{rest.lower()}" if dot else name.lower()
            i = m.end()
        else:
            m = _KEY.match(text, i)
            if m is None or section is None:
                return (*out, ("?", "", f"{path}:{line}"))
            key = f"{section}.{m.group().lower()}"
            at = line
            i = m.end()
            while i < n and text[i] in " \t":
                i += 1
            if i >= n or text[i] in "\n\r#;":
                out.append((key, "true", f"{path}:{at}"))
                continue
            if text[i] != "=":
                return (*out, ("?", "", f"{path}:{line}"))
            value, i, line = _value(text, i + 1, line)
            if value is None:
                return (*out, ("?", "", f"{path}:{line}"))
            out.append((key, value, f"{path}:{at}"))
    return tuple(out)


_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}


def _value(text: str, i: int, line: int) -> tuple[str | None, int, int]:
    """A value from just after `=`: its text (None where git rejects it), where the line ends,
    and the line number there (continuations count)."""
    out: list[str] = []
    quoted = False
    pending = ""  # blanks kept only when more of the value follows (git trims the end)
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n" and not quoted:
            break
        if c == "\n":
            return None, i, line  # a newline inside quotes
        if not quoted and c in "#;":
            while i < n and text[i] != "\n":
                i += 1
            break
        if not quoted and c in " \t\r":
            if out:
                pending += c
            i += 1
            continue
        out.append(pending)
        pending = ""
        if c == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt == "\n":
                line += 1
                i += 2
                continue
            if nxt == "\r" and text[i + 2 : i + 3] == "\n":
                line += 1
                i += 3
                continue
            if nxt not in _ESCAPES:
                return None, i, line
            out.append(_ESCAPES[nxt])
            i += 2
        elif c == '"':
            quoted = not quoted
            i += 1
        else:
            out.append(c)
            i += 1
    if quoted:
        return None, i, line
    return "".join(out), i, line
