"""Which reader reads a command: the table's programs, git's family, and the environment."""

from __future__ import annotations

from shellgate.shell.paths import executable_name_lookup_key
from shellgate.shell.programs.handed import Environment, GitFiles, Handed

PROGRAMS: frozenset[str] = frozenset()
ENVIRONMENT: frozenset[str] = frozenset()


def handed(
    words: tuple[str, ...],
    dynamic: frozenset[int],
    env: Environment,
    git: GitFiles | None = None,
) -> tuple[Handed, ...]:
    """What the command `words` hands on to run (see `Handed`)."""
    if not words:
        return ()
    name = executable_name_lookup_key(words[0]) or words[0]
    del name, dynamic, env, git
    return ()
