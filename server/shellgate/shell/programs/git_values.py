"""What a value given to git runs: a key's value by its kind (`git_keys.Kind`), an alias,
an `ext::` address; shared by `git.read` (configuration given on the command line, in the
environment, in git's files) and `git.read_written` (configuration a script writes). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from shellgate.shell.programs.git_keys import COMMANDS, NOWHERE, Kind, key_kind
from shellgate.shell.programs.git_words import ext_argv, is_bool, quote, split_cmdline
from shellgate.shell.programs.handed import Handed

PROGRAM = "git"
_ARGS = ' "$@"'  # git runs a shell command as `sh -c 'CMD "$@"' CMD ARGS...`


class Setting:
    """One configuration value given to git: `key` canonical (`?` unknown), `value` None for an
    implicit true, `where` for the reason ("set by -c", "from /repo/.git/config:3"); `runtime`
    bash decides the value (or the key); `from_file` read from git's files; `written` by `git
    config KEY VALUE` (an alias of any name may run later). A plain class: a dataclass costs
    a millisecond at every hook start that meets git."""

    __slots__ = ("from_file", "key", "runtime", "value", "where", "written")

    def __init__(
        self,
        key: str,
        value: str | None,
        where: str,
        runtime: bool = False,
        from_file: bool = False,
        written: bool = False,
    ) -> None:
        self.key, self.value, self.where = key, value, where
        self.runtime, self.from_file, self.written = runtime, from_file, written


# What agents set to keep git from waiting on a person (`GIT_EDITOR=true git rebase
# --continue`, `GIT_PAGER=cat git log`, `GIT_SEQUENCE_EDITOR=:`): judged by the rules as any
# command, but never a reason to move an allowed git into the sandbox.
_IDLE = re.compile(r'(true|:|cat|false)( "\$@")?')


def idle(handed: Handed) -> Handed:
    """`handed`, marked `configured` (only ever stricter) when it only keeps git waiting."""
    waits = handed.shell is not None and _IDLE.fullmatch(handed.shell.strip())
    return replace(handed, configured=True) if waits else handed


def ext(url: str, how: str) -> list[Handed]:
    """What an `ext::` address runs (nothing for any other address)."""
    argv = ext_argv(url)
    return [] if argv is None else [Handed(PROGRAM, how, argv=tuple(argv))]


# --- what a setting runs -------------------------------------------------------------------


def setting_runs(
    setting: Setting, words: tuple[str, ...], sub: int | None, dynamic: frozenset[int]
) -> list[Handed]:
    key = setting.key
    if setting.from_file and key == "?":
        why = f"git stops at a line of its configuration ShellGate cannot read ({setting.where})"
        return [Handed(PROGRAM, f"configuration {setting.where}", runtime=why)]
    if setting.runtime and key == "?":
        return [Handed(PROGRAM, f"configuration {setting.where}",
                       runtime="git is given configuration bash decides at run time")]  # fmt: skip
    found = key_kind(key)
    if found is None:
        return []
    kind, spelled = found
    if kind is Kind.ALIAS:
        return _alias(setting, words, sub, dynamic)
    if kind is Kind.PATH and setting.from_file:
        return []  # followed by git_files (includes) or out of reach (hooks written earlier)
    how = f"{_shown(key, spelled)}, {setting.where}"
    if kind is Kind.URL_SUB:
        sub_text = key.split(".", 1)[1].rpartition(".")[0]
        return ext(sub_text, how)
    if setting.value is None:
        if setting.runtime:
            why = f"git runs `{spelled}`, which bash decides at run time"
            return [Handed(PROGRAM, how, runtime=why)]
        return []  # an implicit true: no command
    return value_runs(kind, setting.value, how, setting.runtime)


def _shown(key: str, spelled: str) -> str:
    """The key as documented, with its own subsection or variable (`diff.foo.command`)."""
    doc = spelled.split(".")
    if len(doc) == 3:
        sub = key.split(".", 1)[1].rpartition(".")[0]
        return f"{doc[0]}.{sub}.{doc[2]}"
    return spelled if doc[1] != "*" else key


def value_runs(kind: Kind, value: str, how: str, runtime: bool) -> list[Handed]:
    """What a value of `kind` runs."""
    if runtime:
        why = f"git runs a command bash decides at run time ({how})"
        return [Handed(PROGRAM, how, runtime=why)]
    text = value.strip()
    if kind is Kind.PATH:
        if text in NOWHERE:
            return []
        return [Handed(PROGRAM, how, runtime=f"git runs what it finds in `{value}` ({how})")]
    if kind is Kind.URL:
        return ext(text, how)
    if kind in (Kind.PAGER, Kind.MONITOR) and is_bool(text):
        return []
    if kind is Kind.BANG:
        return [Handed(PROGRAM, how, shell=text[1:] + _ARGS)] if text.startswith("!") else []
    if kind is Kind.HELPER:
        if not text:
            return []
        if text.startswith("!"):
            return [Handed(PROGRAM, how, shell=text[1:] + _ARGS)]
        command = text if text.startswith("/") else f"git credential-{text}"
        return [Handed(PROGRAM, how, shell=command + _ARGS)]
    if kind is Kind.SPLIT:
        argv = split_cmdline(text)
        return [Handed(PROGRAM, how, argv=tuple(argv))] if argv and argv[0] else []
    if kind in (Kind.PROGRAM, Kind.PROXY, Kind.SMTP):
        if kind is Kind.PROXY:
            text = text.split(" for ", 1)[0].strip()
            if text == "none":
                return []
        if not text or (kind is Kind.SMTP and not text.startswith("/")):
            return []
        return [Handed(PROGRAM, how, shell=quote(text) + _ARGS)]
    if not text:
        return []
    shell = value if kind in (Kind.SCRIPT, Kind.PAGER) else value + _ARGS
    return [Handed(PROGRAM, how, shell=shell)]


def _alias(
    setting: Setting, words: tuple[str, ...], sub: int | None, dynamic: frozenset[int]
) -> list[Handed]:
    """The alias git runs for the subcommand at `sub`, if `setting` defines it: `!CMD` runs
    `sh -c 'CMD "$@"' CMD ARGS...`; anything else is more of git's words, read again."""
    key = setting.key
    _, _, rest = key.partition(".")
    named, _, variable = rest.rpartition(".")
    alias = named if named else variable  # `alias.<name>.command`, else `alias.<name>`
    if setting.written:  # it runs later, with words of its own
        sub, words, dynamic = 1, words[:1], frozenset()
    elif sub is None:
        return []
    elif sub not in dynamic:
        given = words[sub]
        if given in COMMANDS or (given != alias if named else given.lower() != alias):
            return []
    how = f"alias `{alias}`, {setting.where}"
    if setting.runtime:
        return [Handed(PROGRAM, how, runtime="git runs an alias bash decides at run time")]
    if setting.value is None:
        return []
    text = setting.value.strip()
    tail = shell_words(words[sub + 1 :], sub + 1, dynamic)
    if text.startswith("!"):
        return [Handed(PROGRAM, how, shell=text[1:] + tail)]
    expansion = split_cmdline(text)
    if not expansion or not expansion[0] or expansion[0] == alias:
        return []  # git refuses a recursive alias, or runs its own command of that name
    if not dynamic:
        return [Handed(PROGRAM, how, argv=(*words[:sub], *expansion, *words[sub + 1 :]))]
    # a word bash decides at run time keeps its source text, read again as such
    head = shell_words(words[:sub], 0, dynamic).lstrip()
    return [Handed(PROGRAM, how, shell=f"{head} {' '.join(quote(w) for w in expansion)}{tail}")]


def shell_words(rest: Sequence[str], start: int, dynamic: frozenset[int]) -> str:
    """Words as shell source: literal ones quoted, one bash decides at run time as its own
    source text (so that it is read again as run-time)."""
    quoted = (w if start + k in dynamic else quote(w) for k, w in enumerate(rest))
    return "".join(" " + w for w in quoted)
