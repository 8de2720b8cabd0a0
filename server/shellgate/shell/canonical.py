"""The command identity used for session approval caching (Codex's
`canonicalize_command_for_approval`, the variant whose tests the corpus's C1 rows encode).

- a `bash/zsh/sh -c|-lc` script that splits into exactly one plain command keeps its shell
  and flag: `[shell, flag, words...]` (so `cargo   test` and `cargo test` share a key);
- any other such script: `["__codex_shell_script__", shell, flag, script]`;
- a PowerShell `-Command` invocation: `["__codex_powershell_script__", *argv]` (the
  executable and its flags are part of the authorisation boundary);
- anything else unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.shell.powershell import extract_powershell_command
from shellgate.shell.split import extract_shell_script, parse_shell_lc_plain_commands

SHELL_SCRIPT_MARKER = "__codex_shell_script__"
POWERSHELL_SCRIPT_MARKER = "__codex_powershell_script__"


def canonicalize_command_for_approval(argv: Sequence[str]) -> list[str]:
    extracted = extract_shell_script(argv)
    if extracted is not None:
        shell, script = extracted
        commands = parse_shell_lc_plain_commands(argv)
        if commands is not None and len(commands) == 1:
            return [shell, argv[1], *commands[0]]
        return [SHELL_SCRIPT_MARKER, shell, argv[1], script]
    if extract_powershell_command(argv) is not None:
        return [POWERSHELL_SCRIPT_MARKER, *argv]
    return list(argv)
