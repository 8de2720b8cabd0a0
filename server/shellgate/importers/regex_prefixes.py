"""A regex that is only an alternation of command prefixes, expanded into those prefixes.

Gemini's `commandRegex` and VS Code's `/regex/` keys are regexes; a Codex rule is a list of
words. Only the plain forms carry over: literal words, blanks between them, groups of
alternatives (`(status|log)`, `(?:a|b)`), and an optional end (`\\b`, `\\s`, `$`, `(\\s|$)`,
`( .*)?`, `.*`). Anything else (character classes, repetition inside a word, lookarounds,
back-references) is refused: guessing would widen or narrow the rule silently.
"""

from __future__ import annotations

import itertools
import re

_MAX_EXPANSION = 64
_LITERAL = re.compile(r"[A-Za-z0-9_\-./=:@,+%~]")
_ESCAPABLE = set(".-/+=:@,%~_()[]{}|?*^$\\ ")
_BLANK = re.compile(r"(?: |\\s\+?|\\s\*| \+)")
_TAIL = re.compile(
    r"(?:\\b|\\s|\$|\(\\s\|\$\)|\(\?:\\s\|\$\)|\( \.\*\)\?|\(\?: \.\*\)\?|\.\*|\\s\.\*|\\b\.\*)$"
)


class NotPlain(Exception):
    """The regex is not a plain alternation of prefixes."""


def expand(regex: str) -> tuple[list[tuple[str, ...]], str]:
    """(the word prefixes the regex matches at the start of a command, how it ends: "open"
    (the last word may run on: `ls.*` matches `lsof`), "word" (a word boundary) or "end"
    (`$`: the whole command, nothing after)). Raises NotPlain."""
    body = regex
    tail = "open"
    while True:
        m = _TAIL.search(body)
        if not m or m.start() == 0:
            break
        if m.group() == "$":
            tail = "end"
        elif m.group() != ".*" and tail == "open":
            tail = "word"
        body = body[: m.start()]
    texts = _alternatives(body)
    prefixes: list[tuple[str, ...]] = []
    for text in texts:
        words = tuple(w for w in re.split(r"\s+", text) if w)
        if not words:
            raise NotPlain("an alternative is empty")
        if words not in prefixes:
            prefixes.append(words)
    return prefixes, tail


def _alternatives(body: str) -> list[str]:
    top: list[list[list[str]]] = [[]]  # alternatives at the top level
    i = 0
    while i < len(body):
        c = body[i]
        if c == "(":
            end = _close(body, i)
            inner = body[i + 1 : end]
            if inner.startswith("?:"):
                inner = inner[2:]
            elif inner.startswith("?"):
                raise NotPlain("a lookaround or named group")
            options: list[str] = []
            for alt in _split_top(inner):
                options += _alternatives(alt)
            top[-1].append(options)
            i = end + 1
            if i < len(body) and body[i] in "*+?{":
                raise NotPlain("a repeated or optional group")
            continue
        if c == "|":
            top.append([])
            i += 1
            continue
        blank = _BLANK.match(body, i)
        if blank:
            top[-1].append([" "])
            i = blank.end()
            continue
        if c == "\\" and i + 1 < len(body) and body[i + 1] in _ESCAPABLE:
            top[-1].append([body[i + 1]])
            i += 2
            continue
        if _LITERAL.match(c):
            if i + 1 < len(body) and body[i + 1] in "*+?{":
                raise NotPlain(f"`{c}{body[i + 1]}` repeats part of a word")
            top[-1].append([c])
            i += 1
            continue
        raise NotPlain(f"`{c}` is regex syntax that no list of words can express")
    out: list[str] = []
    for seq in top:
        combos = 1
        for options in seq:
            combos *= len(options)
            if combos > _MAX_EXPANSION:
                raise NotPlain(f"it expands to more than {_MAX_EXPANSION} prefixes")
        out += ["".join(parts) for parts in itertools.product(*seq)]
    if len(out) > _MAX_EXPANSION:
        raise NotPlain(f"it expands to more than {_MAX_EXPANSION} prefixes")
    return out


def _close(body: str, start: int) -> int:
    depth = 0
    i = start
    while i < len(body):
        if body[i] == "\\":
            i += 2
            continue
        if body[i] == "(":
            depth += 1
        elif body[i] == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise NotPlain("an unbalanced parenthesis")


def _split_top(inner: str) -> list[str]:
    parts, depth, start, i = [], 0, 0, 0
    while i < len(inner):
        c = inner[i]
        if c == "\\":
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
        i += 1
    parts.append(inner[start:])
    return parts
