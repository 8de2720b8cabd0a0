"""What programs run for bash: the table of programs that run commands or load code, and one
small reader per family (see `handed.py` for the value they all give, docs/programs.md for
what is judged and what stays out of reach).

`handed(words, dynamic, env, git)` is the one entry point: the commands (shell source, argv)
and code a command hands on, read from its words, the environment it gets and, for git, its
configuration files. Pure; never raises (a reader that fails says so as a run-time hand-over).
"""

from __future__ import annotations

from shellgate.shell.programs.dispatch import ENVIRONMENT, PROGRAMS, READS_INPUT, handed, ways_of
from shellgate.shell.programs.handed import Environment, GitFiles, Handed

__all__ = [
    "ENVIRONMENT",
    "PROGRAMS",
    "READS_INPUT",
    "Environment",
    "GitFiles",
    "Handed",
    "handed",
    "ways_of",
]
