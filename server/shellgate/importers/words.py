"""From an entry's command text to the words a Codex `prefix_rule` matches."""

from __future__ import annotations

import re
import shlex

# Shell syntax that makes a text a script, not a command prefix: Codex's rules match the words
# of each command after the split, so a rule holding `&&` or `>` could never match anything.
_SHELL_SYNTAX = re.compile(r"[;&|<>`\n\r]|\$\(|\$\{|\$[A-Za-z_]")
_GLOB = re.compile(r"[*?\[\]]")


def prefix_words(text: str) -> tuple[tuple[str, ...], str | None]:
    """The words of `text`, or () and the reason they cannot make a prefix rule."""
    if "\n" in text or "\r" in text:
        return (), (
            "it spans several lines (a saved heredoc or script): it only ever matched that "
            "exact script, and Codex rules match the words of one command"
        )
    found = _SHELL_SYNTAX.search(text)
    if found:
        return (), (
            f"it holds shell syntax (`{found.group()}`): Codex splits scripts into commands "
            "and matches the words of each, so no command could match it"
        )
    try:
        words = tuple(shlex.split(text, posix=True))
    except ValueError as exc:
        return (), f"its quoting does not parse ({exc})"
    if not words:
        return (), "it names no command"
    for word in words:
        if _GLOB.search(word):
            return (), (f"`{word}` is a wildcard pattern; Codex rules match exact words in order")
    return words, None
