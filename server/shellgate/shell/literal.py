"""Every literal command of a script, for danger checks (Codex's
`parse_shell_lc_literal_commands`).

Unlike `split`, this accepts any script tree-sitter-bash parses without error and walks every
command, including those inside `if`/`for`/`while`, functions, pipelines, `$(...)`, backticks
and `<(...)` (see `tsbash`). A command keeps its name and its literal arguments; dynamic words
are dropped and a command whose name is dynamic is skipped. The result may only ever prove
danger, never safety. A script with a syntax error gives None, as in Codex.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.shell.split import extract_shell_script
from shellgate.shell.tsbash import literal_commands


def parse_shell_lc_literal_commands(argv: Sequence[str]) -> list[list[str]] | None:
    extracted = extract_shell_script(argv)
    if extracted is None:
        return None
    return parse_literal_commands(extracted[1])


def parse_literal_commands(script: str) -> list[list[str]] | None:
    """Codex's walk of tree-sitter-bash's tree, in Codex's order (see `tsbash`)."""
    return literal_commands(script)
