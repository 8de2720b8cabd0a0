"""The commands a policy sees in `bash -lc "..."`: Codex's plain-command splitting.

Codex parses the script with tree-sitter-bash and accepts it only if every node is one of a
few "plain" kinds (commands of words and quoted strings joined by `&&`, `||`, `;`, `|`);
anything else makes the whole argv the command. ShellGate walks the same grammar's tree the
same way (`tsbash`), and reads each word as Codex does (quotes stripped, no escape
processing, concatenations joined). `tests/shell/test_shell_properties.py` checks against
real bash that the words are right.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.shell.detect import is_posix_shell
from shellgate.shell.tsbash import word_only_commands


def extract_shell_script(argv: Sequence[str]) -> tuple[str, str] | None:
    """`(shell, script)` for exactly `[shell, -c|-lc, script]` with shell bash/zsh/sh."""
    if len(argv) != 3:
        return None
    shell, flag, script = argv
    if flag not in ("-lc", "-c") or not is_posix_shell(shell):
        return None
    return shell, script


def parse_shell_lc_plain_commands(argv: Sequence[str]) -> list[list[str]] | None:
    """The plain commands of a shell invocation, or None (use the whole argv).

    An empty or blank script gives `[]`, which callers also treat as "not parsed".
    """
    extracted = extract_shell_script(argv)
    if extracted is None:
        return None
    return try_parse_word_only_commands_sequence(extracted[1])


def try_parse_word_only_commands_sequence(script: str) -> list[list[str]] | None:
    """Codex's `try_parse_word_only_commands_sequence`, on tree-sitter-bash as in Codex."""
    return word_only_commands(script)
