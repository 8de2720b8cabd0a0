"""Bash's own reading of a plain script, as a cross-check of tree-sitter's (bashlex).

tree-sitter-bash is Codex's grammar, not bash's: where the two read a script differently, the
argvs Codex's rules see are not the ones bash runs. bashlex ports bash's own yacc grammar; a
script tree-sitter calls plain is checked against it by the source positions of each command's
words (never their values: bashlex's quote removal has bugs, `"a\\nb"` gives `anb`), and any
bashlex exception counts as a disagreement (it cannot read `time`, `coproc`, `case`, ...). On
the research corpus this flagged every command tree-sitter's split hid and nothing else
(`docs/shell.md`, "Bash's own reading").

`import bashlex` costs about 200 ms (it rebuilds its parser tables), so the check is off unless
a long-lived process turns it on with `enable()`; one-shot commands stay fast. This module
itself imports nothing heavy: `tsbash` consults `enabled()` on every split.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

_enabled = False
_lock = threading.Lock()  # bashlex's parser is a module-level yacc object
MAX_CHARS = 50_000  # bashlex takes ~0.8 s for a 5 000-line script; longer ones are flagged

Spans = tuple[tuple[int, int], ...]


def enable() -> None:
    """Cross-check every plain split against bash's grammar from now on, in this process.

    bashlex is imported in the background: the first check waits for it, start-up does not.
    """
    global _enabled
    _enabled = True
    threading.Thread(target=_bashlex, name="shellgate-bashlex-import", daemon=True).start()


def disable() -> None:
    global _enabled
    _enabled = False


def enabled() -> bool:
    return _enabled


def _bashlex() -> Any:
    # deferred: bashlex (~240 ms) only in long-lived processes that enable it
    import bashlex

    return bashlex


def _parse(script: str) -> list[Any]:
    bashlex = _bashlex()
    with _lock:
        parts: list[Any] = bashlex.parse(script)
    return parts


def _commands(parts: list[Any]) -> list[list[Any]]:
    """Every command bashlex sees, anywhere in the tree, as its word nodes."""
    out: list[list[Any]] = []
    stack = list(reversed(parts))
    while stack:
        node = stack.pop()
        if node.kind == "command":
            words: list[Any] = []
            for part in node.parts:
                # after the name an assignment is an argument, as in bash
                if part.kind == "word" or (part.kind == "assignment" and words):
                    words.append(part)
            if words:
                out.append(words)
        children: list[Any] = []
        for attr in ("parts", "list"):
            children.extend(c for c in getattr(node, attr, None) or () if hasattr(c, "kind"))
        for attr in ("command", "output"):
            child = getattr(node, attr, None)
            if child is not None and hasattr(child, "kind"):
                children.append(child)
        stack.extend(reversed(children))
    return out


def _trim(script: str, start: int, end: int) -> tuple[int, int]:
    # bashlex counts a line continuation that ends (or starts) a word as part of it
    while end - start >= 2 and script[end - 2 : end] == "\\\n":
        end -= 2
    while end - start >= 2 and script[start : start + 2] == "\\\n":
        start += 2
    return start, end


def _char_spans(script: str, byte_spans: Sequence[Spans]) -> list[Spans]:
    src = script.encode("utf-8", "surrogateescape")
    if len(src) == len(script):
        return [tuple(c) for c in byte_spans]
    at: dict[int, int] = {}
    offset = 0
    for i, char in enumerate(script):
        at[offset] = i
        offset += len(char.encode("utf-8", "surrogateescape"))
    at[offset] = len(script)
    return [tuple((at[a], at[b]) for a, b in c) for c in byte_spans]


def disagreement(
    script: str, byte_spans: Sequence[Spans], masked: Sequence[tuple[int, int]] = ()
) -> str | None:
    """Why bash's grammar reads `script`'s commands differently from tree-sitter, whose
    commands have words at `byte_spans` (UTF-8 offsets); None if they agree. The words at
    `masked` (byte spans) are ordinary words to bash that bashlex cannot read (`a | time b`):
    bashlex reads same-length filler there."""
    if len(script) > MAX_CHARS:
        return f"too long ({len(script)} characters) to check against bash's own grammar"
    (spans,) = _char_spans(script, [tuple(masked)]) if masked else [()]
    readable = script
    for start, end in spans:
        readable = readable[:start] + "x" * (end - start) + readable[end:]
    try:
        commands = _commands(_parse(readable))
    except Exception as exc:  # bashlex raises ParsingError, NotImplementedError and others
        return f"bash's own grammar (bashlex) does not read it as plain commands ({_why(exc)})"
    theirs = Counter(tuple(_trim(script, *w.pos) for w in c) for c in commands)
    ours = Counter(_char_spans(script, byte_spans))
    if theirs == ours:
        return None
    return "bash's own grammar (bashlex) puts the commands' words elsewhere than tree-sitter"


def bash_commands(script: str) -> tuple[tuple[str, ...], ...] | None:
    """The commands bash's grammar reads in `script`, each word as written in the source
    (quotes kept); None if bashlex cannot read it. For explanations, not decisions."""
    if len(script) > MAX_CHARS:
        return None
    try:
        commands = _commands(_parse(script))
    except Exception:
        return None
    return tuple(tuple(script[slice(*_trim(script, *w.pos))] for w in c) for c in commands)


def _why(exc: Exception) -> str:
    message = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {message}"[:120]
