"""What a program runs for bash: the shared value of every family's reader.

`bash_runs` lists the commands bash executes; some of those commands run more commands
themselves, handed to them through an option (`tar --to-command=CMD`), configuration given on
the command line (`git -c alias.x='!CMD'`), the environment (`GIT_SSH_COMMAND=CMD git ...`,
`BASH_ENV=./x.sh bash -c true`) or an inline program (`awk 'BEGIN {system("CMD")}'`). Each
family's reader (`programs/*.py`) turns one command's words and environment into `Handed`
values; `bash_runs` reads a literal shell string as `sh -c` reads it, a literal argv as an
argv, and makes any other a run decided at run time (asked, never allowed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

# The variables a command gets (its own `VAR=v cmd`, `env VAR=v cmd`, and those exported
# earlier in the same script): name -> value, None when bash decides the value at run time.
Environment = Mapping[str, str | None]


class GitFiles(Protocol):
    """What git's configuration files say for the command's directory (the repository's
    `.git/config` and its includes, `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, the system
    file): the values of each key, in the order git reads them. Keys as git canonicalises
    them: section and variable name lowercased, a subsection as written (`alias.x`,
    `diff.foo.command`). Hashable (it is part of a cached reading's key)."""

    def items(self) -> tuple[tuple[str, str], ...]:
        """(key, value) pairs in the order git reads them."""
        ...

    def origins(self) -> tuple[str, ...]:
        """Where each of `items()` was set (`path:line`), in the same order."""
        ...

    def at(self, chdirs: tuple[str, ...], git_dir: str | None) -> GitFiles:
        """The reading for a command that moves (`git -C DIR`, `--git-dir`, `GIT_DIR`)."""
        ...

    def __hash__(self) -> int: ...


@dataclass(frozen=True)
class Handed:
    """A command a program runs for bash, or code it loads. Exactly one of `shell`, `argv`,
    `runtime` is set: `shell` literal shell source, read as `sh -c` reads it; `argv` a literal
    argv executed as it is; `runtime` why it is known only at run time (a file read, code
    loaded, text built at run time): asked, never allowed."""

    program: str  # "git", "tar", "awk"; for the environment, the variable's name
    how: str  # for the reason: "alias `x`, set by -c", "--checkpoint-action=exec", "BASH_ENV"
    shell: str | None = None
    argv: tuple[str, ...] | None = None
    runtime: str | None = None
    # set on values from configuration files (a user's `core.pager = less`): such a run only
    # makes the decision stricter by a rule or a question, never moves it into the sandbox
    configured: bool = False
