"""Project trust as Codex keeps it: `[projects."<path>"] trust_level` in `$CODEX_HOME/config.toml`.

ShellGate has no trust store of its own; it reads Codex's, and resolves it as the Codex binary
does (0.169.0 and 0.171.0 agree; evidence in docs/trust.md):

- the project root is the nearest ancestor of cwd (cwd included) holding one of
  `project_root_markers` (config.toml; default `[".git"]`, a file or a folder); none found, or
  an empty list: the cwd itself;
- every folder from the root down to cwd that holds a `.codex` folder is a project layer
  (`$CODEX_HOME` itself excepted), root first; its `rules/*.rules` load only when that folder is
  trusted;
- a folder's trust is the first `[projects."…"]` entry with a `trust_level`, looked up by exact
  string: the folder itself, then the project root, then the root of the git repository (the
  main checkout's for a worktree); `"trusted"` loads, anything else (`"untrusted"`, no entry)
  does not;
- a config.toml that is not valid TOML stops Codex before it runs anything: `ConfigError`, with
  file, line and column.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from shellgate.codexconfig.tomlpos import toml_error_position
from shellgate.rules.errors import RulesError

TrustStatus = Literal["trusted", "untrusted", "unknown"]
DEFAULT_ROOT_MARKERS = (".git",)


class ConfigError(RulesError):
    """`$CODEX_HOME/config.toml` is unreadable or not what Codex accepts: Codex will not start."""


@dataclass(frozen=True)
class FolderTrust:
    """One project folder holding `.codex`: whether Codex loads its rules, and which entry said."""

    folder: Path
    status: TrustStatus
    entry: str | None  # the `[projects."…"]` key that decided; None: no entry

    @property
    def trusted(self) -> bool:
        return self.status == "trusted"


@dataclass(frozen=True)
class ProjectTrust:
    """What Codex decides about the project of a session started in `cwd`."""

    cwd: Path
    root: Path | None  # the project root Codex resolves for cwd
    status: TrustStatus  # the trust of cwd itself (its entry, else the root's, else the repo's)
    config: Path  # the config.toml read (it may not exist)
    entry: str | None  # the `[projects."…"]` key that decided `status`
    folders: tuple[FolderTrust, ...] = ()  # folders root..cwd holding `.codex`, root first
    # "config": Codex's config.toml decided; "flag": the caller named a project it trusts
    # (`--project DIR`), whatever config.toml says
    source: Literal["config", "flag"] = "config"

    @property
    def loads_project_rules(self) -> bool:
        """True when Codex loads at least one of this project's `.codex/rules` folders."""
        return any(f.trusted for f in self.folders)

    @property
    def ignored(self) -> tuple[FolderTrust, ...]:
        """Project folders whose rules Codex skips (not trusted)."""
        return tuple(f for f in self.folders if not f.trusted)

    def describe(self) -> str:
        """One sentence for people: what Codex does with this project's rules, and why."""
        where = f"in Codex's config ({self.config})"
        if self.source == "flag":
            return (
                f"--project trusts {self.root}: its .codex/rules load (Codex itself decides "
                f"by the [projects.\"…\"] entries of {self.config})"
            )
        if not self.folders:
            what = {
                "trusted": f"the project is trusted {where}",
                "untrusted": f"the project is marked untrusted {where}",
                "unknown": f"the project has no trust entry {where}",
            }[self.status]
            return f"No project rules: no .codex folder between {self.root} and {self.cwd}; {what}"
        if not self.loads_project_rules:
            if self.status == "untrusted":
                return (
                    f"Codex ignores this project's rules: the project is marked untrusted {where}"
                    f" by [projects.{_key(self.entry)}]"
                )
            return (
                f"Codex ignores this project's rules: the project is not trusted {where}; "
                f'no [projects."…"] entry for {self.root}'
            )
        loaded = ", ".join(str(f.folder / ".codex" / "rules") for f in self.folders if f.trusted)
        text = f"Codex loads this project's rules ({loaded}): trusted {where}"
        trusted_by = sorted({f.entry for f in self.folders if f.trusted and f.entry})
        if trusted_by:
            text += " by " + ", ".join(f"[projects.{_key(e)}]" for e in trusted_by)
        if self.ignored:
            skipped = ", ".join(str(f.folder / ".codex" / "rules") for f in self.ignored)
            text += f"; it ignores {skipped} (not trusted)"
        return text


def _key(entry: str | None) -> str:
    return '"' + (entry or "").replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_config(path: Path) -> dict[str, object]:
    """config.toml as data ({} when it does not exist); ConfigError with a position otherwise."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(
            f"failed to read config: {exc.strerror or exc}", path=str(path), code="config-read",
            kind="read",
        ) from None  # fmt: skip
    import tomllib  # only when there is a file: its import is a good part of a start-up

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            "config.toml is not UTF-8", path=str(path), line=line, column=column,
            code="config-parse",
        ) from None  # fmt: skip
    except tomllib.TOMLDecodeError as exc:
        message, line, column = toml_error_position(exc)
        raise ConfigError(
            message, path=str(path), line=line, column=column, code="config-parse"
        ) from None


def _position(path: Path, *anchors: str) -> tuple[int, int]:
    """(line, column) of the text after the last anchor, each found after the one before:
    where Codex points at a value of the wrong type. (0, 0) when not found."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 0, 0
    at = 0
    for anchor in anchors:
        found = re.compile(anchor).search(text, at)
        if found is None:
            return 0, 0
        at = found.end()
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def _type_error(path: Path, message: str, *anchors: str) -> ConfigError:
    line, column = _position(path, *anchors)
    return ConfigError(message, path=str(path), line=line, column=column, code="config-type")


def _trust_levels(config: Mapping[str, object], path: Path) -> dict[str, str]:
    """{project key: trust_level} for every entry that has one."""
    projects = config.get("projects", {})
    if not isinstance(projects, dict):
        raise _type_error(path, "`projects` must be a table", r"(?m)^\s*projects\s*=\s*")
    levels: dict[str, str] = {}
    for key, entry in projects.items():
        if not isinstance(entry, dict):
            raise _type_error(path, f"[projects.{_key(key)}] must be a table", re.escape(key))
        level = entry.get("trust_level")
        if level is None:
            continue
        if level not in ("trusted", "untrusted"):
            # Codex's enum has exactly these two values: it refuses the file.
            raise _type_error(
                path, f"[projects.{_key(key)}] trust_level: unknown variant {level!r}, "
                "expected `trusted` or `untrusted`", re.escape(key), r"trust_level\s*=\s*",
            )  # fmt: skip
        levels[key] = level
    return levels


def _root_markers(config: Mapping[str, object], path: Path) -> tuple[str, ...]:
    markers = config.get("project_root_markers", list(DEFAULT_ROOT_MARKERS))
    if not isinstance(markers, list) or not all(isinstance(m, str) for m in markers):
        raise _type_error(
            path, "project_root_markers must be an array of strings",
            r"(?m)^\s*project_root_markers\s*=\s*",
        )  # fmt: skip
    return tuple(markers)


def find_project_root(cwd: Path, markers: Sequence[str]) -> Path:
    """The nearest ancestor of cwd (cwd included) holding a marker; cwd when none does."""
    if markers:
        for folder in (cwd, *cwd.parents):
            if any(os.path.lexists(folder / m) for m in markers):
                return folder
    return cwd


def git_repo_root(cwd: Path) -> Path | None:
    """The root of cwd's git repository for trust: for a worktree, the main checkout's root.

    Codex runs `git rev-parse --git-common-dir` and takes its parent (canonical path); this
    reads the same from disk: the nearest `.git`, and for a `gitdir:` file its `commondir`."""
    for folder in (cwd, *cwd.parents):
        dot_git = folder / ".git"
        kind = _kind(dot_git)
        if kind == "dir":
            return Path(os.path.realpath(dot_git)).parent
        if kind == "file":
            return _worktree_main_root(dot_git)
    return None


def _kind(path: Path) -> Literal["dir", "file", "other", "missing"]:
    """What `path` is, following symlinks. RulesError when it cannot be told (a folder that
    cannot be searched): guessing "missing" could drop a project's forbidden rules."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "missing"
        raise RulesError(
            f"cannot tell whether Codex would read it: {exc.strerror or exc}", path=str(path),
            code="read-error", kind="read",
        ) from None  # fmt: skip
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _worktree_main_root(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    git_dir = (dot_git.parent / text.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        common = "."  # a plain gitdir file (submodule): its git dir is the common dir
    return Path(os.path.realpath(git_dir / common)).parent


_Signature = tuple[int, int, int, int]
_CONFIGS: dict[Path, tuple[_Signature, ConfigFile]] = {}
_NO_LEVELS: Mapping[str, str] = MappingProxyType({})
_APPROVAL_VALUES = ("on-failure", "on-request", "never")  # "untrusted": refused (below)
_SANDBOX_VALUES = ("read-only", "workspace-write", "danger-full-access")


@dataclass(frozen=True)
class ConfigFile:
    """What ShellGate takes from one config.toml (system, user or a project's)."""

    path: Path
    levels: Mapping[str, str]  # [projects."…"] trust_level
    markers: tuple[str, ...]  # project_root_markers
    approval_policy: object | None  # a policy name, or a {granular = {…}} table
    sandbox_mode: str | None


def read_config_file(path: Path) -> ConfigFile:
    """config.toml's trust entries, root markers and session values, kept while the file is
    unchanged: tomllib takes tens of milliseconds for a config with hundreds of projects, and
    the editor and the broker ask for every command. Errors are never kept."""
    try:
        st = os.stat(path)
        signature: _Signature | None = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    except FileNotFoundError:
        return ConfigFile(path, _NO_LEVELS, DEFAULT_ROOT_MARKERS, None, None)  # most projects'
    except OSError:
        signature = None
    kept = _CONFIGS.get(path)
    if signature is not None and kept is not None and kept[0] == signature:
        return kept[1]
    config = read_config(path)
    approval, sandbox = _session_values(config, path)
    found = ConfigFile(path, MappingProxyType(_trust_levels(config, path)),
                       _root_markers(config, path), approval, sandbox)  # fmt: skip
    # A file changed within the clock's granularity may change again unseen ("racy git")
    if signature is not None and time.time_ns() - signature[2] > 2_000_000_000:
        _CONFIGS[path] = (signature, found)
    return found


def _session_values(config: Mapping[str, object], path: Path) -> tuple[object | None, str | None]:
    """approval_policy and sandbox_mode as Codex reads them from a config file."""
    approval = config.get("approval_policy")
    if approval == "untrusted":
        raise _type_error(
            path, 'approval_policy = "untrusted" is no longer supported; remove this setting',
            r"(?m)^[ \t]*(?=approval_policy[ \t]*=)",
        )  # fmt: skip
    if approval is not None and approval not in _APPROVAL_VALUES and not (
        isinstance(approval, dict) and set(approval) == {"granular"}
    ):
        raise _type_error(
            path, f"approval_policy: unknown variant {approval!r}, expected one of "
            + ", ".join(f"`{v}`" for v in _APPROVAL_VALUES) + " or a granular table",
            r"(?m)^[ \t]*approval_policy[ \t]*=[ \t]*",
        )  # fmt: skip
    sandbox = config.get("sandbox_mode")
    if sandbox is not None and sandbox not in _SANDBOX_VALUES:
        raise _type_error(
            path, f"sandbox_mode: unknown variant {sandbox!r}, expected one of "
            + ", ".join(f"`{v}`" for v in _SANDBOX_VALUES),
            r"(?m)^[ \t]*sandbox_mode[ \t]*=[ \t]*",
        )  # fmt: skip
    return approval, sandbox if isinstance(sandbox, str) else None


def _trust_config(path: Path) -> tuple[Mapping[str, str], tuple[str, ...]]:
    found = read_config_file(path)
    return found.levels, found.markers


def project_trust(cwd: Path, *, codex_home: Path) -> ProjectTrust:
    """Codex's trust decision for a session started in `cwd` (absolute). Raises ConfigError
    when config.toml is broken (Codex would not start)."""
    config_path = codex_home / "config.toml"
    levels, markers = _trust_config(config_path)
    given = Path(os.path.abspath(cwd))
    cwd = Path(os.path.realpath(given))
    root = find_project_root(cwd, markers)
    repo = git_repo_root(cwd)

    def spelled(folder: Path) -> Path | None:
        """`folder` (an ancestor of the real cwd) as the caller spelled it, through symlinks."""
        depth = len(cwd.parts) - len(folder.parts)
        if depth == 0:
            return given
        return given.parents[depth - 1] if depth <= len(given.parents) else None

    def decide(folder: Path) -> tuple[TrustStatus, str | None]:
        # The real path first, then the spelling through a symlink (docs/trust.md)
        keys = (folder, root, repo, spelled(folder), spelled(root))
        for key in dict.fromkeys(str(k) for k in keys if k is not None):
            if key in levels:
                return ("trusted" if levels[key] == "trusted" else "untrusted"), key
        return "unknown", None

    home = os.path.realpath(codex_home)
    folders: list[FolderTrust] = []
    for folder in _between(root, cwd):
        dot_codex = folder / ".codex"
        if _kind(dot_codex) != "dir" or os.path.realpath(dot_codex) == home:
            continue
        status, entry = decide(folder)
        folders.append(FolderTrust(folder, status, entry))
    status, entry = decide(cwd)
    return ProjectTrust(cwd, root, status, config_path, entry, tuple(folders))


def _between(root: Path, cwd: Path) -> list[Path]:
    """root, …, cwd (root is cwd or one of its ancestors)."""
    chain = [cwd]
    while chain[-1] != root and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return chain[::-1]


def trusted_project(project: Path, *, cwd: Path, codex_home: Path) -> ProjectTrust:
    """`--project DIR`: the caller trusts DIR; its `.codex/rules` is the project layer."""
    project = Path(os.path.abspath(project))
    folders = (FolderTrust(project, "trusted", None),)
    return ProjectTrust(Path(os.path.abspath(cwd)), project, "trusted",
                        codex_home / "config.toml", None, folders, "flag")  # fmt: skip
