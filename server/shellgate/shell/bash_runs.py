"""Every simple command bash would execute for a script or an argv (beyond Codex).

Codex's rules see a plain script's commands, or the whole argv. Bash runs more: `\\rm -rf x`
runs `rm`, `sh -c 'git push'` runs `git push`, `timeout 5 rm x` runs `rm x`, `echo 'rm x' |
bash` runs `rm x`. `bash_runs(script)` and `argv_runs(argv)` list each simple command with
its words as bash sees them after quote removal, escapes, `$'...'`/`$"..."`, literal brace
expansion and splitting on the default `$IFS`; inside every compound, substitution and function
body (whether or not bash reaches it: a superset, so the judgement can only be stricter);
through every runner that executes its arguments (`wrappers.RUNNERS`, plus `busybox APPLET`,
`watch`, `find -exec`, `xargs`, `eval`, `trap`, `su/script/flock -c`); through every shell
handed a script (`sh -c`, a here-string, a here-document or a pipe into a shell); and through
git's global options (`global_options`).

What bash decides only when it runs (a command name from a variable or a substitution, a glob
in command position, an alias, a script piped into a shell whose text is not literal, `source`
of a process substitution, text tree-sitter cannot read) is a `Run` with `unknowable` set.
A word of an argument that bash decides at run time is listed in `Run.dynamic` (its index);
`open_tail` says more arguments come at run time (`xargs CMD`). Pure and bounded: at most
`MAX_RUNS` runs, `MAX_DEPTH` nested shells or runners, `MAX_SCRIPT` characters a script (past
these: unknowable). Never raises.

This module is the front; the reading lives in `shell.bashruns` (tree-sitter's tree, bash's
words, tree-sitter's misreadings, a command's input, the runners).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from shellgate.shell.bashruns.commands import read_script
from shellgate.shell.bashruns.run import (
    MAX_DEPTH,
    MAX_RUNS,
    MAX_SCRIPT,
    UNKNOWABLE,
    Ctx,
    Run,
    no_input,
)
from shellgate.shell.bashruns.runners import SHELLS, run_argv, runs_arguments
from shellgate.shell.bashruns.words import MAX_BRACE, MAX_WORD, Word, read_word
from shellgate.shell.programs import GitFiles

__all__ = ["MAX_BRACE", "MAX_DEPTH", "MAX_RUNS", "MAX_SCRIPT", "MAX_WORD", "SHELLS",
           "UNKNOWABLE", "Run", "Word", "argv_runs", "bash_runs", "read_word",
           "runs_arguments"]  # fmt: skip


@lru_cache(maxsize=64)  # explain's warnings and the gate read the same script
def bash_runs(script: str, git: GitFiles | None = None) -> tuple[Run, ...]:
    """The commands bash would execute for `bash -c SCRIPT` (`git`: git's configuration
    files for the directory it runs in, when the caller knows them)."""
    ctx = Ctx([], read_script, git=git)
    read_script(script, (), 0, ctx)
    return tuple(ctx.out)


def argv_runs(argv: Sequence[str], git: GitFiles | None = None) -> tuple[Run, ...]:
    """The commands executed for an argv run directly (no shell reads it): the argv itself,
    and whatever it runs (a shell's script, a runner's command, ...)."""
    ctx = Ctx([], read_script, git=git)
    if argv:
        run_argv(tuple(argv), frozenset(), (), 0, ctx, no_input)
    return tuple(ctx.out)
