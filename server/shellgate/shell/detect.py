"""Which shell an argv runs, as Codex's `detect_shell_type` decides it.

The match is exact on the spelling (no basename, no case folding on Unix paths): a
workspace file named `./bash` or `/tmp/bash` must not inherit a shell wrapper's trust.
"""

from __future__ import annotations

from enum import Enum


class ShellType(Enum):
    ZSH = "zsh"
    BASH = "bash"
    POWERSHELL = "powershell"
    SH = "sh"
    CMD = "cmd"


_EXACT: dict[str, ShellType] = {
    **dict.fromkeys(
        ("zsh", "/bin/zsh", "/usr/bin/zsh", "/usr/local/bin/zsh", "/opt/homebrew/bin/zsh"),
        ShellType.ZSH,
    ),
    **dict.fromkeys(("sh", "/bin/sh", "/usr/bin/sh"), ShellType.SH),
    **dict.fromkeys(
        (
            "bash",
            "/bin/bash",
            "/usr/bin/bash",
            "/usr/local/bin/bash",
            "/opt/homebrew/bin/bash",
        ),
        ShellType.BASH,
    ),
    **dict.fromkeys(
        (
            "pwsh",
            "powershell",
            "pwsh.exe",
            "powershell.exe",
            "/usr/local/bin/pwsh",
            "/usr/bin/pwsh",
            "/bin/pwsh",
            "/opt/homebrew/bin/pwsh",
        ),
        ShellType.POWERSHELL,
    ),
    **dict.fromkeys(("cmd", "cmd.exe"), ShellType.CMD),
}

_WINDOWS_PATHS: dict[str, ShellType] = {
    "c:/windows/system32/cmd.exe": ShellType.CMD,
    "c:/windows/system32/windowspowershell/v1.0/powershell.exe": ShellType.POWERSHELL,
    "c:/program files/powershell/7/pwsh.exe": ShellType.POWERSHELL,
}

POSIX_SHELLS = frozenset({ShellType.BASH, ShellType.ZSH, ShellType.SH})
# The spellings of those, as strings: a lookup by enum member hashes it with Enum.__hash__ (Python
# code), and the split asks this of every argv it sees. No Windows path names a POSIX shell.
_POSIX_SPELLINGS = frozenset(name for name, kind in _EXACT.items() if kind in POSIX_SHELLS)


def detect_shell_type(shell: str) -> ShellType | None:
    found = _EXACT.get(shell)
    if found is not None or ":" not in shell:  # every Windows path here has a drive letter
        return found
    return _WINDOWS_PATHS.get(shell.replace("\\", "/").lower())


def is_posix_shell(shell: str) -> bool:
    """`detect_shell_type(shell) in POSIX_SHELLS`, by spelling."""
    return shell in _POSIX_SPELLINGS
