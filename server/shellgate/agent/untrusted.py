"""Model text is untrusted: make it safe to print in a terminal or show in a dialog."""

from __future__ import annotations

import unicodedata


def escape_untrusted(text: str, *, keep_newlines: bool = True) -> str:
    """Show control and format characters (ANSI escapes, bidi overrides, ...) as `\\xNN` /
    `\\uNNNN` instead of letting them act on the terminal or hide text."""
    out: list[str] = []
    for ch in text:
        if (ch == "\n" and keep_newlines) or ch == "\t":
            out.append(ch)
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") or ch == "\x7f":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
