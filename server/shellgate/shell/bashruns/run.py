"""What the readings of `bashruns` share: a `Run` (one command bash would execute), the bounds
past which a reading stops, and the state of one reading (`Ctx`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from shellgate.shell.programs import GitFiles, Handed

UNKNOWABLE = "bash decides this command at run time"
MAX_DEPTH = 8
MAX_RUNS = 1000
MAX_SCRIPT = 1 << 20  # characters; a longer script is judged unknowable, never read


@dataclass(frozen=True)
class Run:
    """One simple command bash would execute.

    `words` as bash passes them (a run-time word keeps its source text); `via` how it is
    reached, outermost first (`("sh -c", "timeout")`); `dynamic` the indexes of words bash
    decides at run time; `open_tail` more words come at run time; `unknowable` why bash
    decides the command itself only at run time (then `words` may be empty or partial);
    `handed` the hand-over of a program that runs it (`git -c alias.x='!CMD' x`), if any.
    """

    words: tuple[str, ...]
    via: tuple[str, ...] = ()
    dynamic: frozenset[int] = field(default_factory=frozenset)
    open_tail: bool = False
    unknowable: str | None = None
    handed: Handed | None = None


# Reads a script's commands into a `Ctx` (`commands.read_script`): how a runner hands a shell,
# `eval` or `trap` its source without importing the reader that called it.
ScriptReader = Callable[[str, tuple[str, ...], int, "Ctx"], None]


@dataclass
class Ctx:
    """One reading: the runs found so far, how a script is read, and whether $IFS is bash's
    default where the words are read."""

    out: list[Run]
    read_script: ScriptReader
    ifs_default: bool = True
    # what programs run (shell.programs): git's configuration files for the directory, the
    # variables exported (or only set) earlier in the script, `set -a`, the hand-over being
    # read, and those read already (each once: it gives the same runs)
    git: GitFiles | None = None
    exported: dict[str, str | None] = field(default_factory=dict)
    assigned: dict[str, str | None] = field(default_factory=dict)
    allexport: bool = False
    by: Handed | None = None
    seen: set[Handed] = field(default_factory=set)
    written: dict[str, str | None] = field(default_factory=dict)  # files the script wrote

    def add(self, run: Run) -> bool:
        """False once the bound is reached (the last run added says so)."""
        if len(self.out) >= MAX_RUNS:
            return False
        if len(self.out) == MAX_RUNS - 1:
            run = Run((), run.via, unknowable=f"more than {MAX_RUNS} commands: not read further")
        if self.by is not None and run.handed is None:
            run = replace(run, handed=self.by)
        self.out.append(run)
        return True


# What a command reads on its input, should a shell read it as a script: the text (None when
# bash decides it at run time), how it comes (`<<<`, `echo |`), and a doubt: why bash may read
# other text (the text is read as written too, so that a literal command in it still counts).
Stdin = tuple[str | None, str, str | None]


def no_input() -> Stdin | None:
    return None
