"""Which reader reads a command: the table's row (options, operands, a runner's command, its
own variables), the environment, git's family, and the language readers for inline code."""

from __future__ import annotations

import functools
import importlib
from typing import Protocol, cast

from shellgate.shell.paths import executable_name_lookup_key
from shellgate.shell.programs import environment, options
from shellgate.shell.programs.handed import Environment, GitFiles, Handed
from shellgate.shell.programs.table import ENVIRONMENT_TABLE, SPECS, Hand, Program, row


class _GitReader(Protocol):
    def read(
        self,
        words: tuple[str, ...],
        dynamic: frozenset[int],
        env: Environment,
        files: GitFiles | None,
    ) -> tuple[Handed, ...]: ...


@functools.cache
def _git_family() -> _GitReader | None:
    """git's family, its own module (programs/git.py), loaded for the first git command."""
    try:
        return cast(_GitReader, importlib.import_module("shellgate.shell.programs.git"))
    except ImportError:
        return None


PROGRAMS: frozenset[str] = frozenset({*SPECS, "git"})
ENVIRONMENT: frozenset[str] = frozenset(
    {*ENVIRONMENT_TABLE, *(v for spec in SPECS.values() for v in spec.get("env") or ())}
)
_SCRIPT_ON_INPUT = {"python": "python", "perl": "perl", "ruby": "ruby", "node": "node",
                    "php": "php", "lua": "lua", "m4": "m4"}  # fmt: skip
_SHELL_ON_INPUT = frozenset({"at", "batch"})  # `echo CMD | at now`: commands for `sh`
# the programs whose script may come on their input (`python3 <<EOF`): bash_runs passes it
READS_INPUT: frozenset[str] = _SHELL_ON_INPUT | frozenset(
    name
    for name, spec in SPECS.items()
    if spec.get("code") and spec.get("lang") in _SCRIPT_ON_INPUT
)
_PROGRAM_FIRST = {"awk": ("-f", "--file", "-e", "--source", "-E", "--exec"),
                  "sed": ("-f", "--file", "-e", "--expression")}  # fmt: skip


def handed(
    words: tuple[str, ...],
    dynamic: frozenset[int],
    env: Environment,
    git: GitFiles | None = None,
    stdin: str | None = None,
) -> tuple[Handed, ...]:
    """What the command `words` hands on to run (see `Handed`); `stdin` the text on its
    input when bash knows it (a here-document, a literal pipe), for an interpreter reading
    its program there."""
    if not words:
        return ()
    name = executable_name_lookup_key(words[0]) or words[0]
    try:
        return _handed(name, words, dynamic, env, git, stdin)
    except (RecursionError, MemoryError, ValueError, LookupError, TypeError) as exc:
        # a reader that fails fails closed: what the program runs is asked
        why = f"ShellGate could not read what `{name}` runs ({type(exc).__name__})"
        return (Handed(name, "its reading", runtime=why),)


def _handed(
    name: str,
    words: tuple[str, ...],
    dynamic: frozenset[int],
    env: Environment,
    git: GitFiles | None,
    stdin: str | None,
) -> tuple[Handed, ...]:
    program = row(name)
    out: list[Handed] = []
    family = _git_family() if name == "git" else None
    if family is not None:  # first: the reason names git and how it runs the command
        out += family.read(words, dynamic, env, git)
        env = {k: v for k, v in env.items() if not k.startswith("GIT_")}  # git's reader's
    if env:
        out += environment.read(name, env, dict(program.env) if program is not None else None)
    if program is not None:
        out += _row(name, program, words, dynamic, stdin)
    return tuple(out)


def _row(
    name: str, entry: Program, words: tuple[str, ...], dynamic: frozenset[int], stdin: str | None
) -> list[Handed]:
    out: list[Handed] = []
    found, operands = options.found(entry, words, dynamic)
    language = next((w.language for ways in entry.options.values() for w in ways if w.language), "")
    for f in found:
        out += _value(name, f, f.index in dynamic)
    if language in _PROGRAM_FIRST and operands:
        given = {f.spelling for f in found} | {w.split("=", 1)[0] for w in words[1:]}
        if not given.intersection(_PROGRAM_FIRST[language]):  # `awk 'PROGRAM' FILE...`
            out += code_of(language, words[operands[0]], name, f"its {language} program")
    elif (
        language in _SCRIPT_ON_INPUT
        and stdin is not None
        and not found
        and (
            not operands or words[operands[0]] == "-"  # `python3 <<EOF ... EOF`
        )
    ):
        out += code_of(language, stdin, name, "its program, read on its input")
    if name in _SHELL_ON_INPUT and not any(f.way.hand is Hand.FILE for f in found):
        if stdin is not None:
            out.append(Handed(name, "the commands on its input", shell=stdin))
        else:
            why = f"`{name}` runs the commands on its input, known at run time"
            out.append(Handed(name, "the commands on its input", runtime=why))
    if language == "vim":  # `vim +CMD`: an Ex command, as `-c CMD`
        for k in operands:
            if words[k].startswith("+") and len(words[k]) > 1:
                from shellgate.shell.programs import commands  # deferred: the patterns (~3 ms)

                out += commands.read("vim", words[k][1:], name, f"`{words[k][:20]}`")
    start = options.rest_start(entry, words, dynamic)
    rest = entry.rest
    if start is not None and rest is not None:
        how = f"`{' '.join(words[:start])}`" if start <= 5 else f"`{name}`"
        if start in dynamic:
            out.append(Handed(name, how, runtime=f"`{name}` runs `{words[start]}`"))
        elif rest.shell:
            out.append(Handed(name, how, shell=" ".join(words[start:])))
        else:
            first = rest.directory + words[start] if rest.directory else words[start]
            out.append(Handed(name, how, argv=(*rest.run, first, *words[start + 1 :])))
            if rest.maybe_skip and start + rest.skip < len(words):  # `setarch [ARCH] CMD`
                out.append(Handed(name, how, argv=words[start + rest.skip :]))
    elif rest is not None and rest.run and rest.after and rest.after[-1] in words:
        out.append(Handed(name, f"`{name}`", argv=rest.run))  # `capsh --`: bash, reading input
    return out


def code_of(language: str, code: str, program: str, how: str) -> list[Handed]:
    from shellgate.shell.programs import commands  # deferred: the languages' patterns (~3 ms)

    return commands.code_of(language, code, program, how)


def _value(name: str, f: options.Found, dynamic: bool) -> list[Handed]:
    """What one option's (or operand's) value hands over."""
    hand, how = f.way.hand, f"`{f.spelling}`" if f.spelling else f"its operand `{f.value[:40]}`"
    if hand in (Hand.CODE, Hand.COMMANDS):
        # a value built at run time is read as written: `sed "s/$A/$B/"` is not asked
        if hand is Hand.CODE:
            return code_of(f.way.language, f.value, name, how)
        from shellgate.shell.programs import commands  # deferred: the patterns (~3 ms)

        return commands.read(f.way.language, f.value, name, how)
    if dynamic:
        return [
            Handed(
                name, how, runtime=f"`{name} {f.spelling}` is given a command decided at run time"
            )
        ]
    if hand is Hand.SHELL:
        return [Handed(name, how, shell=f.value)] if f.value.strip() else []
    if hand is Hand.ARGV:
        value = f.value
        argv = tuple(value.split(",")) if "," in value and " " not in value else (value,)
        return [Handed(name, how, argv=argv)] if value else []
    if hand is Hand.FILE:
        if f.value == "/dev/null" and not dynamic:  # reads nothing (`make -f /dev/null --eval=…`)
            return []
        return [
            Handed(
                name, how, runtime=f"`{name}` runs what `{f.value}` says (a file read at run time)"
            )
        ]
    return [
        Handed(
            name, how, runtime=f"`{name} {f.spelling}` loads `{f.value}` (code loaded at run time)"
        )
    ]


_GIT_WAYS = ("`-c`/`--config-env` and the `GIT_CONFIG_*` variables (`alias.*` with `!`, "
             "`core.sshCommand`, `core.editor`, `core.pager`, `core.fsmonitor`, `diff.external`, "
             "...), `GIT_SSH_COMMAND` and git's other variables, `--upload-pack`, `ext::` URLs, "
             "and its configuration files")  # fmt: skip


def ways_of(name: str) -> str | None:
    """How the program `name` is handed commands, for lint and explain (None: it is not)."""
    if name == "git":
        return _GIT_WAYS
    found = row(name)
    if found is None:
        return None
    parts = [f"`{o}`" for o in list(found.options)[:6]]
    if found.rest is not None:
        after = found.rest.after
        parts.append("the command it is given" + (f" after `{' '.join(after)}`" if after else ""))
    if found.operands is not None:
        parts.append(f"its operands ({found.operands.language or found.operands.hand.value})")
    language = next((w.language for ways in found.options.values() for w in ways if w.language),
                    "")  # fmt: skip
    if language == "awk":
        parts.append('its program (`system()`, `print | "CMD"`, `"CMD" | getline`)')
    elif language == "sed":
        parts.append("its script (`e CMD`, `s///e`)")
    parts += [f"`{v}`" for v in found.env]
    return ", ".join(parts) if parts else None
