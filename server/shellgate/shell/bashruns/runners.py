"""An argv read for what it runs in turn: a shell's script (`sh -c`, a script on its input),
`eval`, `trap`, `su/script/flock -c`, `sudo -s`, `busybox APPLET`, `watch`, `find -exec`, and
every wrapper `wrappers.RUNNERS` knows (`timeout`, `env`, `xargs`, ...) or git's global options
(`global_options`).

`run_argv` adds the argv as a run, then looks its program up in `READERS`: the one place where
a program's words are read for what it runs. A reader returns whether the reading goes on
(False once the bound is reached), or None when the words name nothing the program runs that
way: then the general reading follows (bash's `time`/`coproc` keywords, global options, the
wrappers). Shell source found on the way goes back through the script reader (`Ctx`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from shellgate.shell.bashruns.environment import NO_ENV, Env, assignments, hands_env
from shellgate.shell.bashruns.misreadings import RESERVED, keyword_body, skipped
from shellgate.shell.bashruns.run import MAX_DEPTH, MAX_RUNS, Ctx, Run, Stdin, no_input
from shellgate.shell.dangerous import trap_action
from shellgate.shell.global_options import GLOBAL_OPTIONS, canonical_words
from shellgate.shell.paths import executable_name_lookup_key
from shellgate.shell.programs import PROGRAMS, READS_INPUT, handed
from shellgate.shell.programs.files import files_run, norm
from shellgate.shell.wrappers import RUNNERS, flock_source, unwrap

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "lksh",
                    "pdksh", "ksh93", "rbash", "busybox-sh", "fish", "csh", "tcsh"})  # fmt: skip
_SHELL_VALUED = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})


@dataclass(frozen=True)
class Command:
    """An argv being read for what it runs: its words, its program (`/bin/sh` -> `sh`), the
    indexes of words bash decides at run time, how it is reached, how deep, and what it reads
    on its input (asked only for a shell)."""

    words: tuple[str, ...]
    name: str
    dynamic: frozenset[int]
    via: tuple[str, ...]
    depth: int
    ctx: Ctx
    stdin: Callable[[], Stdin | None]
    open_tail: bool
    env: Env  # the variables it gets, as far as the script says

    @property
    def here(self) -> tuple[str, ...]:
        return (*self.via, self.name)

    def unknowable(self, why: str, label: str | None = None) -> bool:
        """A run bash decides at run time, reached through this program (or `label`)."""
        return self.ctx.add(Run((), (*self.via, label or self.name), unknowable=why))

    def inner(self, start: int, *, label: str | None = None, tail: bool | None = None) -> bool:
        """The words from `start` run as a command of their own (`timeout 5 rm x`)."""
        label = self.name if label is None else label
        tail = self.open_tail if tail is None else tail
        rest = self.words[start:]
        if not rest:
            return True
        moved = frozenset(i - start for i in self.dynamic if i >= start)
        if label == "xargs":  # `xargs -I{} CMD {}`: the replaced words come at run time
            marker = _xargs_replace(self.words[:start])
            moved |= {k for k, w in enumerate(rest) if marker and marker in w}
        via = (*self.via, label)
        if 0 in moved:
            why = f"`{label}` runs `{rest[0]}`"
            return self.ctx.add(Run(rest, via, moved, tail, unknowable=why))
        env = self.env  # `env VAR=v CMD`, `sudo VAR=v CMD`: CMD gets VAR
        if label in _SETS_ENV:
            env = assignments(self.words, 1, start, self.dynamic, env)
        return run_argv(rest, moved, via, self.depth + 1, self.ctx, self.stdin, tail, env)

    def source(self, text: str, index: int | None, label: str) -> bool:
        """`text` run as shell source (`sh -c TEXT`), from the word at `index` if any."""
        if index is not None and index in self.dynamic:
            why = f"`{label}` runs shell source from an expansion"
            if not self.unknowable(why, label):
                return False  # and its text as written, for the commands it names literally
        saved = self.ctx.exported  # the shell gets this command's environment
        self.ctx.exported = dict(self.env) if self.env else saved
        self.ctx.read_script(text, (*self.via, label), self.depth + 1, self.ctx)
        self.ctx.exported = saved
        return len(self.ctx.out) < MAX_RUNS


def run_argv(
    words: tuple[str, ...],
    dynamic: frozenset[int],
    via: tuple[str, ...],
    depth: int,
    ctx: Ctx,
    stdin: Callable[[], Stdin | None],
    open_tail: bool = False,
    env: Env = NO_ENV,
) -> bool:
    """`words` run as a command, and what it runs in turn (`env`: the variables it gets, as
    far as the script says). False once the bound is reached."""
    if not ctx.add(Run(words, via, dynamic, open_tail)):
        return False
    if depth >= MAX_DEPTH:
        return ctx.add(Run((), via, unknowable=f"commands nested more than {MAX_DEPTH} deep"))
    name = executable_name_lookup_key(words[0]) or words[0]
    skip = skipped(words)
    if skip:  # `time -p { rm x; }`, `! function f { rm x; }`: tree-sitter's recovery
        here = (*via, name)
        body, moved = words[skip:], frozenset(i - skip for i in dynamic if i >= skip)
        if 0 in moved:
            why = f"its name is `{body[0]}`"
            return ctx.add(Run(body, here, moved, open_tail, unknowable=why))
        return run_argv(body, moved, here, depth + 1, ctx, stdin, open_tail, env)
    cmd = Command(words, name, dynamic, via, depth, ctx, stdin, open_tail, env)
    if name == "set" and any(w[:1] == "-" and "a" in w[1:] for w in words[1:]):
        ctx.allexport = True  # `set -a`: every assignment after it is exported
    if name in ("tee", "cp", "mv"):
        _copied(cmd)  # `… | tee FILE`, `cp A B`: files the script writes
    reads = name in PROGRAMS or (env and hands_env(env)) or ctx.written
    if reads and not _programs(cmd):
        return False  # what the program runs through its options, configuration, environment
    reader = READERS.get(name)
    if reader is not None:
        done = reader(cmd)
        if done is not None:
            return done
    return _wrapped(cmd)


def _wrapped(cmd: Command) -> bool:
    """The general reading: bash's `time`/`coproc` keywords, git's global options, and the
    wrappers (`wrappers.RUNNERS`) that run the words after their own options."""
    words, name, dynamic = cmd.words, cmd.name, cmd.dynamic
    if words[0] in ("time", "coproc"):  # bash's keywords, which tree-sitter reads as names
        at, unwrapped = keyword_body(words), unwrap(list(words))
        # the words after them run as they are (`time -x` runs `-x`); /usr/bin/time (piped,
        # or after a runner) reads its own options: both when they differ
        if (unwrapped is None or len(unwrapped[1]) != len(words) - at) and not cmd.inner(at):
            return False
        if words[0] == "coproc" and at < len(words):
            # bash 5.2 re-reads a command substitution's text with the coproc's default name
            # written in, which then runs as the command: `$(coproc rm x)` runs `COPROC rm x`
            # (differential seed 1819842003); listed everywhere (a superset stays stricter)
            moved = frozenset(i - at + 1 for i in dynamic if i >= at)
            named = ("COPROC", *words[at:])
            if not run_argv(named, moved, cmd.via, cmd.depth + 1, cmd.ctx, cmd.stdin,
                            cmd.open_tail, cmd.env):  # fmt: skip
                return False
    canonical = canonical_words(words)
    if canonical is not None:
        kept, start = canonical
        moved = frozenset(i - start + 1 for i in dynamic if i >= start)
        via = (*cmd.via, f"{name} {words[1]}")
        depth, ctx = cmd.depth + 1, cmd.ctx
        return run_argv(kept, moved, via, depth, ctx, cmd.stdin, cmd.open_tail, cmd.env)
    unwrapped = unwrap(list(words))
    if unwrapped is not None:
        label, rest = unwrapped
        tail = cmd.open_tail or label == "xargs"
        if tuple(rest) == words[len(words) - len(rest) :]:
            return cmd.inner(len(words) - len(rest), label=label, tail=tail)
        if dynamic:  # env -S "..." split from a run-time word
            return cmd.unknowable(f"`{label}` splits an expansion into a command")
        via = (*cmd.via, label)
        depth, ctx = cmd.depth + 1, cmd.ctx
        return run_argv(tuple(rest), frozenset(), via, depth, ctx, cmd.stdin, tail, cmd.env)
    return True


# --- the programs ------------------------------------------------------------------------


def _shell(cmd: Command, offset: int = 0) -> bool:
    """A shell's options (its argv from `offset` in the command's words): `-c SCRIPT`
    (anywhere among them), a script file operand, or a script read on its input (`-s`, `-`,
    no operand): known only from a here-string, a here-document or a literal pipe
    (`stdin.stdin_of`); any other input is run-time (`echo x | { bash; }`, `>(sh)`, a shell
    inside a script that was itself piped in)."""
    argv = cmd.words[offset:]
    label = executable_name_lookup_key(argv[0]) or argv[0]
    i, dash_c, reads_stdin = 1, False, False
    while i < len(argv):
        arg = argv[i]
        if arg == "--" or arg == "-":
            reads_stdin = arg == "-"
            i += 1
            break
        if arg in _SHELL_VALUED:
            i += 2
            continue
        if arg.startswith("--"):
            i += 1
            continue
        if len(arg) > 1 and arg[0] in "-+" and arg[1:].isalpha():
            dash_c = dash_c or (arg[0] == "-" and "c" in arg)
            reads_stdin = reads_stdin or (arg[0] == "-" and "s" in arg)
            i += 1 + sum(1 for letter in arg[1:] if letter in "oO")
            continue
        break
    if i >= len(argv) and cmd.open_tail:  # `xargs sh -c`, `xargs bash`: the script comes later
        return cmd.unknowable(f"`{label}` gets its script from input", label)
    if dash_c:
        if i >= len(argv):
            return True
        return cmd.source(argv[i], i + offset, f"{label} -c")
    if i < len(argv) and not reads_stdin:
        operand = argv[i]
        if i + offset in cmd.dynamic or operand.startswith(("<(", "/dev/fd/", "/proc/self/fd/")):
            return cmd.unknowable(f"`{label}` runs a script from `{operand}`", label)
        if operand not in ("/dev/stdin", "/proc/self/fd/0"):
            return True  # a script file: the rules judge `bash FILE`
    given = cmd.stdin()
    if given is None:
        return cmd.unknowable(f"`{label}` reads a script on its input", label)
    content, how, doubt = given
    if content is None:
        return cmd.unknowable(f"`{label}` reads {how}", label)
    if doubt is not None and not cmd.unknowable(f"`{label}` reads {doubt}", label):
        return False
    return cmd.source(content, None, f"{how} {label}")


def _box(cmd: Command) -> bool:
    """`busybox sh ...` is a shell; `busybox [options] APPLET ...` runs the applet."""
    if cmd.words[1:2] in (("sh",), ("ash",), ("bash",)):
        return _shell(cmd, 1)
    i = 1
    while i < len(cmd.words) and cmd.words[i].startswith("-"):
        i += 1
    return cmd.inner(i, label=f"{cmd.name} APPLET")


def _eval(cmd: Command) -> bool:
    if any(i > 0 for i in cmd.dynamic):
        return cmd.unknowable("`eval` of an expansion", "eval")
    return cmd.source(" ".join(cmd.words[1:]), None, "eval")


def _source(cmd: Command) -> bool:
    """`source FILE`: the rules judge the command; a script from a pipe or an expansion is
    run-time."""
    target = cmd.words[1] if len(cmd.words) > 1 else ""
    if 1 in cmd.dynamic or target.startswith(("<(", "/dev/fd/", "/proc/self/fd/", "/dev/stdin")):
        return cmd.ctx.add(
            Run((), cmd.here, unknowable=f"`{cmd.name}` reads a script from `{target}`")
        )
    return True


def _alias(cmd: Command) -> bool | None:
    if any("=" in w for w in cmd.words[1:]):
        return cmd.unknowable("an alias definition")
    return None


def _trap(cmd: Command) -> bool:
    action = trap_action(list(cmd.words))
    return True if action is None else cmd.source(action, None, "trap")


def _watch(cmd: Command) -> bool:
    """`watch [options] CMD...`: `sh -c` of the words joined, or the argv itself with -x."""
    words = cmd.words
    valued = {"-n", "--interval", "-q", "--equexit"}
    i, direct = 1, None
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        direct = direct or words[i] == "--exec" or re.fullmatch("-[a-z]*x[a-z]*", words[i])
        i += 2 if words[i] in valued else 1
    if i < len(words) and words[i] == "--":
        i += 1
    if direct is not None:
        return cmd.inner(i, label="watch -x")
    return cmd.source(" ".join(words[i:]), None, "watch") if i < len(words) else True


def _flock(cmd: Command) -> bool | None:
    at = flock_source(cmd.words)
    return None if at is None else cmd.source(cmd.words[at], at, "flock -c")


def _dash_c(cmd: Command) -> bool | None:
    """The shell source of `-c SRC`, `-lc SRC`, `--command SRC`, `--command=SRC` (`su`,
    `runuser`, `script`, `sg`)."""
    words = cmd.words
    for i, w in enumerate(words[1:], 1):
        if w == "--":
            return None
        if w.startswith("--command="):
            return cmd.source(w.split("=", 1)[1], i, f"{cmd.name} -c")
        if (w == "--command" or re.fullmatch("-[A-Za-z]*c", w)) and i + 1 < len(words):
            return cmd.source(words[i + 1], i + 1, f"{cmd.name} -c")
    return None


def _sudo(cmd: Command) -> bool | None:
    if not any(re.fullmatch("-[A-Za-z]*[si]", w) for w in cmd.words[1:3]):
        return None
    unwrapped = unwrap(list(cmd.words))  # `sudo -s CMD...`: the login shell runs `-c 'CMD...'`
    return cmd.source(" ".join(unwrapped[1]), None, "sudo -s") if unwrapped else True


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find(cmd: Command) -> bool:
    words, dynamic, via, ctx = cmd.words, cmd.dynamic, cmd.via, cmd.ctx
    i = 0
    while i < len(words):
        if words[i] in _FIND_EXEC:
            end = i + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            rest = words[i + 1 : end]
            label = f"find {words[i]}"
            if rest:
                moved = {k - i - 1 for k in dynamic if i < k < end}
                moved |= {k for k, w in enumerate(rest) if "{}" in w}
                if 0 in moved:
                    why = f"`{label}` runs `{rest[0]}`"
                    if not ctx.add(Run(rest, (*via, label), frozenset(moved), unknowable=why)):
                        return False
                elif not run_argv(
                    rest, frozenset(moved), (*via, label), cmd.depth + 1, ctx, no_input, env=cmd.env
                ):
                    return False
            i = end
        i += 1
    return True


def _xargs_replace(options: tuple[str, ...]) -> str | None:
    """The replace string of xargs' `-I R`, `-IR`, `-i[R]`, `--replace[=R]` (default `{}`)."""
    for i, word in enumerate(options):
        if word == "-I" and i + 1 < len(options):
            return options[i + 1]
        if word.startswith("-I") and len(word) > 2:
            return word[2:]
        if word.startswith(("-i", "--replace")):
            value = word.split("=", 1)[1] if "=" in word else word[2:] if word[:2] == "-i" else ""
            return value or "{}"
    return None


Reader = Callable[[Command], bool | None]

# The programs whose words name what they run, each with its reader (see the module's doc).
READERS: dict[str, Reader] = {
    **dict.fromkeys(SHELLS, _shell),
    **dict.fromkeys(("busybox", "toybox"), _box),
    "eval": _eval,
    "source": _source,
    ".": _source,
    "alias": _alias,
    "trap": _trap,
    "watch": _watch,
    "flock": _flock,
    **dict.fromkeys(("su", "runuser", "script", "sg"), _dash_c),
    "sudo": _sudo,
    "find": _find,
}

# Every program whose arguments `run_argv` reads; any other command runs only its own words
# (the table of what programs run, and the words that export variables, included).
_LOOKS_INTO = frozenset({*READERS, *RUNNERS, *GLOBAL_OPTIONS, *RESERVED, "function", *PROGRAMS,
                         "export", "declare", "typeset", "local", "readonly", "set"})  # fmt: skip


def runs_arguments(program: str) -> bool:
    """Whether bash_runs reads more than the words of a command named `program` (a shell, a
    runner, `eval`, `find`, git's global options, ...): if none of a plain script's commands
    does, its runs are exactly its commands."""
    return (executable_name_lookup_key(program) or program) in _LOOKS_INTO


# --- what programs run for bash (shell.programs) ----------------------------------------------

_SETS_ENV = frozenset({"env", "sudo", "doas"})  # runners that take `NAME=VALUE` words


def _programs(cmd: Command) -> bool:
    """What the program runs through its options, configuration and environment
    (`programs.handed`): shell source read as `sh -c` reads it, an argv as an argv, anything
    else a run decided at run time. False once the bound is reached."""
    ctx, words = cmd.ctx, cmd.words
    script: str | None = None
    if cmd.name in READS_INPUT:  # `python3 <<EOF`, `echo CMD | at now`
        given = cmd.stdin()
        if given is not None and given[0] is not None and given[2] is None:
            script = given[0]
    found = handed(words, cmd.dynamic, cmd.env, ctx.git, script)
    if ctx.written:  # `echo 'rm x' > s.sh; bash s.sh`: a file this script wrote, run
        found += tuple(files_run(words, ctx.written))
    for h in found:
        if h in ctx.seen:  # `export EDITOR=…`: read once, not again for each command after
            continue
        ctx.seen.add(h)
        label = f"{h.program}: {h.how}"
        outer, ctx.by = ctx.by, h
        if h.shell is not None:
            going = cmd.source(h.shell, None, label)
        elif h.argv:
            via = (*cmd.via, label)
            going = run_argv(h.argv, frozenset(), via, cmd.depth + 1, ctx, no_input, env=cmd.env)
        else:
            going = cmd.unknowable(h.runtime or f"{h.program} runs what {h.how} says", label)
        ctx.by = outer
        if not going:
            return False
    return True


def _copied(cmd: Command) -> None:
    """`cp SRC DST` (`mv`): DST holds SRC's text, when the script wrote SRC or bash decides
    it; `… | tee FILE`: FILE holds the text piped in."""
    at = [k for k, w in enumerate(cmd.words) if k and not w.startswith("-")]
    operands = [cmd.words[k] for k in at]
    if cmd.name in ("cp", "mv") and len(operands) == 2:
        source, written = norm(operands[0]), cmd.ctx.written
        if at[0] in cmd.dynamic or source in written:  # a copy of a file this script wrote
            written[norm(operands[1])] = None if at[0] in cmd.dynamic else written[source]
    elif cmd.name == "tee":
        given = cmd.stdin()
        text = given[0] if given is not None and given[2] is None else None
        for path in operands:
            cmd.ctx.written[norm(path)] = text
