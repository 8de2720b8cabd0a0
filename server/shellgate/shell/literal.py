"""Every literal command of a script, for danger checks (Codex's
`parse_shell_lc_literal_commands`).

Unlike `split`, this accepts any script tree-sitter-bash parses without error and walks every
command, including those inside `if`/`for`/`while`, functions, pipelines, `$(...)`, backticks
and `<(...)` (see `tsbash`). A command keeps its name and its literal arguments; dynamic words
are dropped and a command whose name is dynamic is skipped. The result may only ever prove
danger, never safety. A script with a syntax error gives None, as in Codex.

`parse_script` gives bashlex's trees, which `wrappers` walks for explain's warnings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shellgate.shell.bashlex_compat import rewrite
from shellgate.shell.split import extract_shell_script
from shellgate.shell.tsbash import literal_commands

# Longer scripts are opaque to bashlex (explain's warnings only): it is a pure-Python LALR
# parser and this keeps the worst case bounded.
MAX_SCRIPT_CHARS = 100_000


def parse_shell_lc_literal_commands(argv: Sequence[str]) -> list[list[str]] | None:
    extracted = extract_shell_script(argv)
    if extracted is None:
        return None
    return parse_literal_commands(extracted[1])


def parse_literal_commands(script: str) -> list[list[str]] | None:
    """Codex's walk of tree-sitter-bash's tree, in Codex's order (see `tsbash`)."""
    return literal_commands(script)


def parse_script(script: str) -> list[Any] | None:
    """bashlex's trees for a script, or None when it cannot parse it (never raises)."""
    if len(script) > MAX_SCRIPT_CHARS or "\x00" in script:
        return None
    from shellgate.shell.bashlex_loader import load

    bashlex = load()  # lazy: only non-plain scripts need the full parser

    # bashlex wants a newline after a heredoc's closing delimiter; other gaps are rewritten
    # (positions kept) only when the original text fails.
    rewritten = rewrite(script)
    for text in dict.fromkeys((script, script + "\n", rewritten, rewritten + "\n")):
        try:
            return list(bashlex.parse(text))
        except Exception:  # ParsingError, NotImplementedError, RecursionError, ...
            continue
    return None
