"""A hook's `matcher` as Codex reads it: a regular expression (Rust's `regex` crate) searched in
the tool name. Python's `re` accepts more than Rust's crate: lookaround and backreferences
compile here and not in Codex, where the matcher is invalid (a managed hook with one stops
Codex: `failed to load required managed hooks: invalid matcher …`). Both are refused here."""

from __future__ import annotations

import re

_RUST_UNSUPPORTED = re.compile(r"\(\?<?[=!]|\\[1-9]|\(\?P=")  # lookaround, backreferences


def matcher_error(matcher: str | None) -> str | None:
    """Why Codex cannot compile `matcher` (`regex parse error: …`), None when it can; none,
    `""` and `*` match every tool."""
    if matcher is None or matcher in ("", "*"):
        return None
    try:
        re.compile(matcher)
    except re.error as exc:
        return f"regex parse error: {exc}"
    if _RUST_UNSUPPORTED.search(matcher):
        return "regex parse error: look-around and backreferences are not supported"
    return None
