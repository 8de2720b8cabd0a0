"""Text from a model, an agent or a command is untrusted: make it safe to print in a terminal or
show in a dialog. One function for every front end (the terminal, the editor's dialogs, the
broker's notices, MCP's forms, the agent's stream)."""

from __future__ import annotations

import unicodedata

_ONE_LINE = {"\n": "\\n", "\t": "\\t"}


def escape_untrusted(text: str, *, one_line: bool = False) -> str:
    """Control and format characters (ANSI escapes, bidi overrides, zero-width marks, line
    separators) as visible `\\xNN` / `\\uNNNN`, so that they can neither act on the terminal
    nor hide text. Newlines and tabs stay, unless `one_line` (a command or a reason in a
    question), where they show as `\\n` and `\\t`."""
    out: list[str] = []
    for ch in text:
        if ch in _ONE_LINE:
            out.append(_ONE_LINE[ch] if one_line else ch)
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def escape_one_line(text: str) -> str:
    """`escape_untrusted` for one line of a question: a command, a cwd, a reason."""
    return escape_untrusted(text, one_line=True)
