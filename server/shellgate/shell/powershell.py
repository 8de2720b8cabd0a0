"""PowerShell invocations as Codex recognises them (`extract_powershell_command`)."""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.shell.detect import ShellType, detect_shell_type

_FLAGS = frozenset({"-nologo", "-noprofile", "-command", "-c"})


def extract_powershell_command(argv: Sequence[str]) -> tuple[str, str] | None:
    """`(shell, script)` for `pwsh [-NoLogo|-NoProfile]... -Command|-c SCRIPT`; only known
    flags may precede the script and the executable must be a known PowerShell path."""
    if len(argv) < 3 or detect_shell_type(argv[0]) is not ShellType.POWERSHELL:
        return None
    for i in range(1, len(argv) - 1):
        flag = argv[i].lower()
        if flag not in _FLAGS:
            return None
        if flag in ("-command", "-c"):
            return argv[0], argv[i + 1]
    return None
