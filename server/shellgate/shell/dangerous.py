"""Commands Codex's heuristics call dangerous (D2 `dangerous_command_match`).

`rm` with a force option before `--` is `FORCED_RM`; `sudo`, `env` and `trap` are looked
through; shell scripts (`bash -lc`, also nested and inside command substitutions) are
checked command by command; looking more than eight wrappers deep is `OTHER` (fail closed).
On Windows builds Codex also applies its cmd/PowerShell checks: pass `windows=True`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from shellgate.shell.literal import parse_shell_lc_literal_commands
from shellgate.shell.paths import executable_name_lookup_key

MAX_WRAPPER_DEPTH = 8


class DangerKind(Enum):
    FORCED_RM = "ForcedRm"
    OTHER = "Other"


def dangerous_command_match(argv: Sequence[str], *, windows: bool = False) -> DangerKind | None:
    return _match(list(argv), 0, windows)


def is_dangerous_command(argv: Sequence[str], *, windows: bool = False) -> bool:
    return dangerous_command_match(argv, windows=windows) is not None


def _match(argv: list[str], depth: int, windows: bool) -> DangerKind | None:
    if depth > MAX_WRAPPER_DEPTH:
        return DangerKind.OTHER
    found = _match_exec(argv, depth, windows)
    if found is not None:
        return found
    for command in parse_shell_lc_literal_commands(argv) or ():
        found = _match(command, depth + 1, windows)
        if found is not None:
            return found
    if windows:
        # deferred: shell.windows (~4-10 ms) only for a Windows or PowerShell command
        from shellgate.shell.windows import is_dangerous_command_windows

        if is_dangerous_command_windows(argv):
            return DangerKind.OTHER
    return None


def _match_exec(argv: list[str], depth: int, windows: bool) -> DangerKind | None:
    name = executable_name_lookup_key(argv[0], windows=windows) if argv else None
    if name == "rm":
        return DangerKind.FORCED_RM if rm_forces(argv[1:]) else None
    if name == "sudo":
        return _match(argv[1:], depth + 1, windows)
    if name == "env":
        return _match(argv[env_command_index(argv) :], depth + 1, windows)
    if name == "trap":
        action = trap_action(argv)
        return None if action is None else _match(["sh", "-c", action], depth + 1, windows)
    return None


def rm_forces(args: Sequence[str]) -> bool:
    """`--force`, or a single-dash cluster containing `f`, before the first `--`."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--force" or (arg.startswith("-") and not arg.startswith("--") and "f" in arg):
            return True
    return False


def env_command_index(argv: Sequence[str]) -> int:
    """Where the command run by `env` starts: after `-i`, `--ignore-environment` and
    `NAME=value` words; a `--` is consumed; any other option stops the scan."""
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return i + 1
        name, eq, _ = arg.partition("=")
        if arg in ("-i", "--ignore-environment") or (eq and name and not name.startswith("-")):
            i += 1
            continue
        break
    return i


def trap_action(argv: Sequence[str]) -> str | None:
    """The shell source a `trap [--] ACTION ...` stores, unless it looks like an option."""
    i = 2 if len(argv) > 1 and argv[1] == "--" else 1
    if i < len(argv) and not argv[i].startswith("-"):
        return argv[i]
    return None


def dangerous_powershell_words_match(
    words: Sequence[str], *, windows: bool = False
) -> DangerKind | None:
    """Codex's check of already-split PowerShell words: only on Windows builds."""
    if not windows:
        return None
    # deferred: shell.windows (~4-10 ms) only for a Windows or PowerShell command
    from shellgate.shell.windows import is_dangerous_powershell_words

    return DangerKind.OTHER if is_dangerous_powershell_words(list(words)) else None
