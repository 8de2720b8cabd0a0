"""Every literal command of a script, for danger checks (Codex's
`parse_shell_lc_literal_commands`).

Unlike `split`, this accepts any script bashlex can parse and walks every command,
including those inside `if`/`for`/`while`, functions, pipelines, `$(...)`, backticks and
`<(...)`. A command keeps its name and the arguments whose spelling is literal (read from
the source text with the same rules as plain words); dynamic words are dropped and a command
whose name is dynamic is skipped. The result may only ever prove danger, never safety.

A script bashlex cannot parse gives None: it is one opaque command, as with Codex's parse
errors. Valid bash that bashlex 0.18 does not implement (`case`, `[[ ]]`, `$((...))`, ...) is
rewritten by `bashlex_compat` and parsed again. Nothing here raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shellgate.shell.bashlex_compat import embedded_substitutions, rewrite
from shellgate.shell.split import (
    extract_shell_script,
    read_literal_word,
    try_parse_word_only_commands_sequence,
)

# Longer scripts are treated as opaque: bashlex is a pure-Python LALR parser and this keeps
# the worst case bounded.
MAX_SCRIPT_CHARS = 100_000
# Substitutions nested in raw text (see `bashlex_compat.embedded_substitutions`) are parsed
# recursively up to this depth.
MAX_NESTING = 16


def parse_shell_lc_literal_commands(argv: Sequence[str]) -> list[list[str]] | None:
    extracted = extract_shell_script(argv)
    if extracted is None:
        return None
    return parse_literal_commands(extracted[1])


def parse_literal_commands(script: str) -> list[list[str]] | None:
    return _literal_commands(script, 0)


def _literal_commands(script: str, nesting: int) -> list[list[str]] | None:
    plain = try_parse_word_only_commands_sequence(script)
    if plain is not None:
        # Fast path, same answer: every command of a plain script is literal, and the walk
        # below visits a flat list of commands last to first.
        return plain[::-1]
    trees = parse_script(script)
    if trees is None:
        return None
    commands: list[list[str]] = []
    # Depth-first with a stack, children pushed in order, as Codex walks tree-sitter's tree.
    stack: list[Any] = list(trees)
    while stack:
        node = stack.pop()
        kind = getattr(node, "kind", None)
        if kind == "command":
            command = _literal_command(node, script)
            if command is not None:
                commands.append(command)
        elif nesting < MAX_NESTING:
            # Text bashlex keeps raw but bash expands: `${x:-$(cmd)}`, unquoted heredocs.
            for source in embedded_substitutions(_raw_expanded_text(node, script)):
                commands.extend(_literal_commands(source, nesting + 1) or ())
        stack.extend(_children(node))
    return commands


def _raw_expanded_text(node: Any, script: str) -> str:
    kind = getattr(node, "kind", None)
    if kind == "parameter":
        return str(getattr(node, "value", ""))
    heredoc = getattr(node, "heredoc", None)
    if kind == "redirect" and heredoc is not None:
        delimiter = _source(getattr(node, "output", None), script)
        if not any(quote in delimiter for quote in "'\"\\"):  # quoted: the body is literal
            return str(getattr(heredoc, "value", ""))
    return ""


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


def _children(node: Any) -> list[Any]:
    found: list[Any] = []
    for attr in ("parts", "list"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            found.extend(value)
    for attr in ("command", "output"):
        value = getattr(node, attr, None)
        if hasattr(value, "kind"):
            found.append(value)
    return found


def _literal_command(node: Any, script: str) -> list[str] | None:
    words: list[str] = []
    for part in getattr(node, "parts", []):
        if part.kind != "word":
            continue  # assignments and redirections are not words of the command
        literal = _source_word(part, script)
        if not words and literal is None:
            return None  # a dynamic command name: skipped
        if literal is not None:
            words.append(literal)
    return words or None


def _source_word(node: Any, script: str) -> str | None:
    source = _source(node, script)
    return read_literal_word(source) if source else None


def _source(node: Any, script: str) -> str:
    pos = getattr(node, "pos", None)
    if not (isinstance(pos, tuple) and len(pos) == 2):
        return ""
    start, end = pos
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(script)):
        return ""
    return script[start:end]
