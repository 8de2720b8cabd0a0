"""Allows that would let far more run than they say: the lint's runner list, and a few more.

An imported `allow` on one of these becomes `prompt` unless the user keeps it (`--keep-risky`):
the source tool's "read-only" lists often hold `sed`, `awk` or `find` (P14), and a rule on a
program that runs other programs allows everything.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from shellgate.lint.runners import (
    DESTRUCTIVE,
    EXEC_OPTIONS,
    INLINE_CODE_FLAGS,
    INTERPRETERS,
    RUNNERS,
)

# Beyond the lint's list: programs whose own language runs commands or writes files.
_SCRIPTABLE = {
    "sed": "`sed` runs commands (its `e` command) and rewrites files (`-i`, `w`)",
    "gsed": "`sed` runs commands (its `e` command) and rewrites files (`-i`, `w`)",
    "awk": "`awk` runs commands with `system()` and writes files",
    "gawk": "`awk` runs commands with `system()` and writes files",
    "mawk": "`awk` runs commands with `system()` and writes files",
    "nawk": "`awk` runs commands with `system()` and writes files",
}


def risk(pattern: Sequence[str]) -> str | None:
    """Why an `allow` on this word prefix allows more than it seems, or None."""
    program = posixpath.basename(pattern[0]) or pattern[0]
    rest = pattern[1:]
    if program in RUNNERS or program.startswith("python3."):
        return f"`{program}` runs the command that follows it"
    if program in INTERPRETERS:
        if not rest or (len(rest) == 1 and rest[0] in INLINE_CODE_FLAGS):
            return f"`{program}` runs any code it is given"
        return None
    if program in EXEC_OPTIONS:
        return f"`{program} {EXEC_OPTIONS[program]}` runs any command"
    if program in DESTRUCTIVE:
        return f"`{program}` destroys data"
    if program in _SCRIPTABLE:
        return _SCRIPTABLE[program]
    return None
