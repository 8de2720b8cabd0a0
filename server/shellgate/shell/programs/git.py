"""What git runs for bash: its command-valued configuration, environment and options.

`read(words, dynamic, env, files)` lists, for one git command, every command git may run:
from configuration given on the command line (`-c`, `--config-env`, `clone -c`), in the
environment (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`,
`GIT_CONFIG_PARAMETERS`), in git's configuration files (`files`, read by `git_files`), from
git's own variables (`GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`, ...), from its subcommands'
options (`--upload-pack`, `rebase --exec`, ...), `ext::` addresses, and the alias it runs. The
keys, variables and options are data (`git_keys`); what each value runs is `git_values`.
Stricter than git where that is simpler: every command-valued key given is judged whichever
subcommand runs (a literal value of an ordinary program costs no question: the rules allow it
or it runs in the sandbox), every value of a key, not only the last, and every conditional
include. Keys from files that name files
or directories (`core.hooksPath`, `include.path`) are followed by `git_files` or left out of
reach: code in files written earlier is not judged (docs/programs-git.md). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from shellgate.shell.programs.git_format import parse_config
from shellgate.shell.programs.git_keys import (
    ENVIRONMENT,
    GLUED_ONLY,
    OPTIONS,
    RUNS_REST,
    SHORT_VALUED,
    Kind,
    key_kind,
)
from shellgate.shell.programs.git_values import (
    PROGRAM,
    Setting,
    ext,
    idle,
    setting_runs,
    shell_words,
    value_runs,
)
from shellgate.shell.programs.git_words import (
    canonical_key,
    config_pair,
    config_parameters,
)
from shellgate.shell.programs.handed import Environment, GitFiles, Handed

_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                     "--super-prefix", "--attr-source", "--list-cmds"})  # fmt: skip


def read(
    words: Sequence[str],
    dynamic: frozenset[int],
    env: Environment,
    files: GitFiles | None = None,
) -> tuple[Handed, ...]:
    """Every command the git command `words` may run (see the module)."""
    words = tuple(words)
    settings: list[Setting] = []
    out: list[Handed] = []
    chdirs: list[str] = []
    git_dir = env.get("GIT_DIR") if "GIT_DIR" in env else None
    i = 1
    while i < len(words):
        word = words[i]
        name, eq, glued = word.partition("=") if word.startswith("--") else (word, "", "")
        if word[:2] in ("-c", "-C") and len(word) > 2 and not word.startswith("--"):
            name, eq, glued = word[:2], "=", word[2:]
        if name not in _VALUED and not (name == "--exec-path" and eq):
            if not word.startswith("-") or word == "--":
                break
            i += 1
            continue
        at = i if eq else i + 1
        value = glued if eq else (words[i + 1] if i + 1 < len(words) else None)
        i = at + 1
        if value is None:
            break
        runtime = at in dynamic
        if name == "-c":
            settings += _given(value, runtime, "set by -c")
        elif name == "--config-env":
            settings += _config_env(value, runtime, env)
        elif name == "-C" and not runtime:
            chdirs.append(value)
        elif name == "--git-dir" and not runtime:
            git_dir = value
        elif name == "--exec-path":
            out += value_runs(Kind.PATH, value, "--exec-path, the directory of git's programs",
                           runtime)  # fmt: skip
    settings += _environment_config(env)
    out += _environment(env)
    sub = i if i < len(words) else None
    if sub is not None:
        settings += _subcommand(words, sub, dynamic, out)
    out += _addresses(words, dynamic)
    if files is not None:
        placed = files.at(tuple(chdirs), git_dir) if chdirs or git_dir else files
        settings += _from_files(placed)
    if sub is not None and any(i > sub for i in dynamic) and _ext_allowed(settings, env):
        why = "git may run an ext:: address bash decides at run time (the ext transport is allowed)"
        out.append(Handed(PROGRAM, "protocol.ext.allow", runtime=why))
    for setting in settings:
        found = setting_runs(setting, words, sub, dynamic)
        if setting.from_file or setting.written:  # only ever stricter (handed.Handed)
            found = [replace(h, configured=True) for h in found]
        out += found
    return tuple(dict.fromkeys(idle(h) for h in out))


def read_written(
    words: Sequence[str], dynamic: frozenset[int], written: Mapping[str, str | None]
) -> tuple[Handed, ...]:
    """What the git command `words` runs from git configuration files the same script wrote
    before it (`printf '[alias]\\n\\tx = !rm x\\n' >> .git/config && git x`): their keys
    judged as if given on the command line (`written`: path as written -> the text written,
    None when bash decides it at run time: asked)."""
    words = tuple(words)
    sub = _subcommand_index(words)
    out: list[Handed] = []
    for path, text in written.items():
        if not is_config_path(path):
            continue
        where = f"written into {path} earlier in this script"
        if text is None:
            why = f"git reads `{path}`, which this script writes with text known only at run time"
            out.append(Handed(PROGRAM, f"configuration {where}", runtime=why))
            continue
        for key, value, _ in parse_config(text, path):
            if key == "?":
                why = f"git reads `{path}`, which this script writes with a line git rejects"
                out.append(Handed(PROGRAM, f"configuration {where}", runtime=why))
                break
            out += setting_runs(Setting(key, value, where), words, sub, dynamic)
    return tuple(dict.fromkeys(idle(h) for h in out))


_CONFIG_NAMES = (".gitconfig", "gitconfig", ".gitmodules")


def is_config_path(path: str) -> bool:
    """Whether git reads `path` as configuration: a repository's `config` or
    `config.worktree`, `~/.gitconfig`, `git/config` (XDG), the system `gitconfig`, or a file
    named like them (an include may name any file: those named `*.gitconfig` or `*.cfg` under a
    `git` folder are taken too)."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    parent = parts[-2] if len(parts) > 1 else ""
    if name in _CONFIG_NAMES or name.endswith(".gitconfig"):
        return True
    if name in ("config", "config.worktree") and (parent.endswith(".git") or parent == "git"):
        return True
    return parent in (".git", "git") and name.endswith(".cfg")


def _subcommand_index(words: tuple[str, ...]) -> int | None:
    """Where git's subcommand is, past its global options."""
    i = 1
    while i < len(words):
        word = words[i]
        if word in _VALUED:
            i += 2
        elif word.startswith("-") and word != "--":
            i += 1
        else:
            return i if word != "--" else None
    return None


# --- where configuration is given -----------------------------------------------------------


def _given(word: str, runtime: bool, where: str) -> list[Setting]:
    """One `KEY=VALUE` word of `-c` (or `clone -c`); one bash decides at run time is judged
    by the key it names literally, if any (`-c "color.ui=$C"` runs nothing)."""
    if runtime:
        literal = word.lstrip("\"'").partition("=")
        key = canonical_key(literal[0]) if literal[1] and "$" not in literal[0] else None
        return [Setting(key or "?", None, where, runtime=True)]
    pair = config_pair(word)
    return [] if pair is None else [Setting(pair[0], pair[1], where)]


def _config_env(word: str, runtime: bool, env: Environment) -> list[Setting]:
    """`--config-env=KEY=VAR`: the value of the variable VAR git is given."""
    key, _, var = word.rpartition("=")
    canonical = canonical_key(key)
    if runtime or canonical is None:
        return [Setting(canonical or "?", None, "set by --config-env", runtime=True)]
    where = f"set by --config-env from {var}"
    value = env.get(var)
    if value is None:  # from the environment git inherits, or decided at run time
        return [Setting(canonical, None, where, runtime=True)]
    return [Setting(canonical, value, where)]


def _environment_config(env: Environment) -> list[Setting]:
    """`GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, and
    `GIT_CONFIG_PARAMETERS`."""
    found: list[Setting] = []
    if "GIT_CONFIG_COUNT" in env:
        count = env["GIT_CONFIG_COUNT"]
        where = "set by GIT_CONFIG_COUNT"
        if count is None or not count.strip().isdigit():
            keys = [k for k in env if k.startswith("GIT_CONFIG_KEY_")]
            found.append(Setting("?", None, where, runtime=True))
            count = str(len(keys) + 1)
        for n in range(min(int(count), 1000)):
            key, value = env.get(f"GIT_CONFIG_KEY_{n}"), env.get(f"GIT_CONFIG_VALUE_{n}")
            canonical = canonical_key(key) if key is not None else None
            if canonical is None:
                if f"GIT_CONFIG_KEY_{n}" in env:
                    found.append(Setting("?", None, where, runtime=True))
                continue
            found.append(Setting(canonical, value, where, runtime=value is None))
    if "GIT_CONFIG_PARAMETERS" in env:
        text = env["GIT_CONFIG_PARAMETERS"]
        where = "set by GIT_CONFIG_PARAMETERS"
        pairs = config_parameters(text) if text is not None else None
        if text is None or (pairs is None and text.strip()):
            found.append(Setting("?", None, where, runtime=True))
        found += [Setting(k, v, where) for k, v in pairs or ()]
    return found


def _from_files(files: GitFiles) -> list[Setting]:
    return [
        Setting(key, value, f"from {origin}", from_file=True)
        for (key, value), origin in zip(files.items(), files.origins(), strict=False)
        if key == "?" or key_kind(key) is not None
    ]


def _environment(env: Environment) -> list[Handed]:
    out: list[Handed] = []
    for var, (kind, how) in ENVIRONMENT.items():
        if var in env:
            value = env[var]
            out += value_runs(kind, value or "", how, value is None)
    return out


# --- subcommands ----------------------------------------------------------------------------


def _subcommand(
    words: tuple[str, ...], sub: int, dynamic: frozenset[int], out: list[Handed]
) -> list[Setting]:
    """The options of the subcommand at `sub` that run commands (into `out`), and the
    configuration it sets (`clone -c`) or writes (`git config KEY VALUE`)."""
    name = words[sub]
    settings: list[Setting] = []
    if name == "config":
        return _config_write(words, sub, dynamic)
    options = OPTIONS.get(name, {})
    short = SHORT_VALUED.get(name, "")
    i = sub + 1
    while i < len(words) and words[i] != "--":
        word = words[i]
        found = None
        if word.startswith("--"):
            option, eq, glued = word.partition("=")
            if name == "clone" and "--config".startswith(option) and len(option) > 4:
                found = ("-c", eq, glued)
            else:
                found = _long(options, option, eq, glued)
        elif word.startswith("-") and len(word) > 1:
            for j, letter in enumerate(word[1:], 1):
                if f"-{letter}" in options or (name == "clone" and letter == "c"):
                    found = (f"-{letter}", "=" if word[j + 1 :] else "", word[j + 1 :])
                    break
                if letter in short:
                    break
        i += 1
        if found is None:
            continue
        option, eq, value = found
        if not eq and (name, option) in GLUED_ONLY:
            continue
        at = i - 1 if eq else i
        if not eq:
            if i >= len(words):
                break
            value, i = words[i], i + 1
        if option == "-c":
            settings += _given(value, at in dynamic, "set by clone -c")
        else:
            out += value_runs(options[option], value, f"git {name} {option}", at in dynamic)
    for (first, second), how in RUNS_REST.items():
        if name == first:
            out += _runs_rest(words, sub, second, how, dynamic)
    return settings


def _long(
    options: dict[str, Kind], option: str, eq: str, glued: str
) -> tuple[str, str, str] | None:
    """A long option of `options`, or a unique abbreviation git accepts (any is taken)."""
    if option in options:
        return option, eq, glued
    if len(option) > 3:
        for known in options:
            if known.startswith(option):
                return known, eq, glued
    return None


def _runs_rest(
    words: tuple[str, ...], sub: int, action: str, how: str, dynamic: frozenset[int]
) -> list[Handed]:
    """`git submodule foreach [--recursive] CMD...`, `git bisect run CMD...`: git runs
    `sh -c 'CMD "$@"' CMD ARGS...`."""
    i = sub + 1
    while i < len(words) and words[i].startswith("-"):
        i += 1
    if i >= len(words) or words[i] != action:
        return []
    i += 1
    while i < len(words) and words[i] in ("--recursive", "-q", "--quiet"):
        i += 1
    if i >= len(words):
        return []
    if i in dynamic:
        return [Handed(PROGRAM, how, runtime=f"`{how}` runs a command bash builds at run time")]
    return [Handed(PROGRAM, how, shell=words[i] + shell_words(words[i + 1 :], i + 1, dynamic))]


_CONFIG_VALUED = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment",
                            "--value"})  # fmt: skip
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--unset",
                           "--unset-all", "--rename-section", "--remove-section", "-l", "--list",
                           "-e", "--edit", "--get-color", "--get-colorbool", "get", "list",
                           "unset", "rename-section", "remove-section", "edit"})  # fmt: skip


def _config_write(words: tuple[str, ...], sub: int, dynamic: frozenset[int]) -> list[Setting]:
    """`git config [--global] KEY VALUE`, `git config set KEY VALUE`: the value written,
    judged as if given (it runs with the next git command, maybe in the same script)."""
    positional: list[int] = []
    i = sub + 1
    while i < len(words):
        word = words[i]
        if word in _CONFIG_READS:
            return []
        if word in _CONFIG_VALUED:
            i += 2
            continue
        if not word.startswith("-"):
            positional.append(i)
        i += 1
    if positional and words[positional[0]] == "set":
        positional = positional[1:]
    if len(positional) < 2:
        return []
    k, v = positional[:2]
    key = canonical_key(words[k]) if k not in dynamic else None
    if key is None:
        return [Setting("?", None, "written by git config", runtime=True)]
    return [Setting(key, words[v], "written by git config", v in dynamic, written=True)]


def _ext_allowed(settings: list[Setting], env: Environment) -> bool:
    """Whether git is told to allow its `ext::` transport (never allowed by default)."""
    allowed = env.get("GIT_ALLOW_PROTOCOL") if "GIT_ALLOW_PROTOCOL" in env else ""
    if allowed is None or "ext" in allowed.split(":"):
        return True
    return any(
        s.key in ("protocol.ext.allow", "protocol.allow")
        and (s.runtime or (s.value or "").strip().lower() in ("always", "user"))
        for s in settings
    )


def _addresses(words: tuple[str, ...], dynamic: frozenset[int]) -> list[Handed]:
    """`ext::CMD ARGS` addresses among the words (`git ls-remote 'ext::sh -c rm% x'`)."""
    out: list[Handed] = []
    for i, word in enumerate(words[1:], 1):
        url = word.split("=", 1)[-1] if word.startswith("--") else word  # `--remote=ext::…`
        if i not in dynamic and url.startswith("ext::"):
            out += ext(url, f"the ext:: address `{url}`")
    return out
