"""Read-only commands Codex's S1 classifier knows to be safe (`is_known_safe_command`).

In Codex 0.169.0's runtime this no longer lets anything skip a question (spec C.0 point 1);
ShellGate keeps it for explanations and lints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shellgate.shell.paths import executable_name_lookup_key, path_components
from shellgate.shell.split import parse_shell_lc_plain_commands

_ALWAYS_SAFE = frozenset(
    {
        "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl",
        "paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "uniq", "wc",
        "which", "whoami",
    }
)  # fmt: skip
_LINUX_SAFE = frozenset({"numfmt", "tac"})
_UNSAFE_FIND = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"}
)
_UNSAFE_RG = frozenset({"--search-zip", "-z"})
_UNSAFE_RG_WITH_VALUE = ("--pre", "--hostname-bin")
_SED_N_ARG = re.compile(r"[0-9]+(,[0-9]+)?p")


def is_known_safe_command(argv: Sequence[str], *, linux: bool = True) -> bool:
    command = ["bash" if word == "zsh" else word for word in argv] if "zsh" in argv else argv
    if is_safe_to_call_with_exec(command, linux=linux):
        return True
    plain = parse_shell_lc_plain_commands(command)
    return bool(plain) and all(is_safe_to_call_with_exec(c, linux=linux) for c in plain or ())


def is_safe_to_call_with_exec(argv: Sequence[str], *, linux: bool = True) -> bool:
    if not argv:
        return False
    # A workspace file can impersonate a safe utility by its basename: bare names only.
    if len(path_components(argv[0])) != 1:
        return False
    name = executable_name_lookup_key(argv[0])
    if name is None:
        return False
    if name in _ALWAYS_SAFE or (linux and name in _LINUX_SAFE):
        return True
    args = argv[1:]
    if name == "base64":
        return not any(
            a in ("-o", "--output") or a.startswith("--output=") or a.startswith("-o") for a in args
        )
    if name == "find":
        return _UNSAFE_FIND.isdisjoint(argv)
    if name == "rg":
        return not any(
            a in _UNSAFE_RG or any(a == o or a.startswith(o + "=") for o in _UNSAFE_RG_WITH_VALUE)
            for a in argv
        )
    if name == "git":
        return False  # repository config can run helpers: no git command is provably safe
    if name == "sed":
        return (
            len(argv) <= 4
            and len(argv) >= 3
            and argv[1] == "-n"
            and _SED_N_ARG.fullmatch(argv[2]) is not None
        )
    return False


def is_safe_powershell_words(words: Sequence[str], *, windows: bool = False) -> bool:
    """Codex's Windows safelist for split PowerShell words; always False off Windows."""
    if not windows:
        return False
    # deferred: shell.windows (~4-10 ms) only for a PowerShell command
    from shellgate.shell.windows import is_safe_powershell_words as check

    return check(list(words))
