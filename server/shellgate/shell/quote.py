"""Codex's `shlex::try_join` for messages: the Rust `shlex` crate's quoting, with its NUL rule.

The quoting and splitting themselves live in `shellgate.rules.shlex_rs` (the engine needs them
for examples); this module adds what Codex's messages do on top: a word holding a NUL cannot be
quoted (`QuoteError::Nul`), and then the words are joined plainly.
"""

from __future__ import annotations

from collections.abc import Iterable

from shellgate.rules.shlex_rs import quote, split

__all__ = ["split", "try_join", "try_quote"]


def try_quote(word: str) -> str | None:
    """One word quoted, or None if it holds a NUL byte (Rust's `QuoteError::Nul`)."""
    return None if "\x00" in word else quote(word)


def try_join(words: Iterable[str]) -> str:
    """The words quoted and joined by spaces; with a NUL anywhere, Codex's fallback of a
    plain space-join."""
    listed = list(words)
    if any("\x00" in w for w in listed):
        return " ".join(listed)
    return " ".join(quote(w) for w in listed)
