"""Sed scripts: GNU sed's `e COMMAND` (runs COMMAND with `sh -c`), a bare `e` and the `e` flag
of `s///e` (they run the pattern space: text from the input, decided at run time). Read as sed
reads a script: addresses, `!`, blocks, and the commands whose text runs to the line's end
(`a`, `i`, `c`, `r`, `w`, labels, comments). Any other script hands nothing over (`sed -n 1,5p
f` is judged as today).
"""

from __future__ import annotations

import re

from shellgate.shell.programs.handed import Handed

_NUMBER = re.compile(r"\d+(?:~\d+)?|\$")
_TO_LINE_END = frozenset("aicrRwW#")
_LABELLED = frozenset("btT:")


def read(script: str, program: str, how: str) -> list[Handed]:
    """The commands a sed script runs."""
    if "e" not in script:
        return []
    out: list[Handed] = []
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!":
            i += 1
            continue
        i = _address(script, i)
        while i < n and script[i] in " \t!":
            i += 1
        if i < n and script[i] == ",":
            i = _address(script, i + 1)
            while i < n and script[i] in " \t!":
                i += 1
        if i >= n:
            break
        c = script[i]
        if c == "e":
            end = _line_end(script, i + 1)
            command = script[i + 1 : end].strip()
            if command:
                out.append(Handed(program, f"{how}, `e`", shell=command))
            else:
                why = f"{program}'s `e` runs the pattern space (text from its input)"
                out.append(Handed(program, how, runtime=why))
            i = end
        elif c in "sy" and i + 1 < n:
            parts, i = _delimited(script, i + 1, 2)
            flags = re.match(r"[A-Za-z0-9]*", script[i:])
            letters = flags.group() if flags else ""
            if c == "s" and "e" in letters.split("w", 1)[0]:
                why = f"{program}'s `s///e` runs the pattern space (text from its input)"
                out.append(Handed(program, how, runtime=why))
            i += len(letters)
            if "w" in letters:
                i = _line_end(script, i)
            del parts
        elif c in _TO_LINE_END:
            i = _text_end(script, i + 1) if c in "aic" else _line_end(script, i + 1)
        elif c in _LABELLED:
            while i < n and script[i] not in ";\n":
                i += 1
        else:
            i += 1
    return out


def _address(script: str, i: int) -> int:
    m = _NUMBER.match(script, i)
    if m is not None:
        return m.end()
    if i < len(script) and script[i] in "/\\":
        start = i + 1 if script[i] == "/" else i + 2
        delimiter = "/" if script[i] == "/" else script[i + 1 : i + 2]
        _, end = _delimited(script, start - 1, 1, delimiter)
        while end < len(script) and script[end] in "IM":
            end += 1
        return end
    if i < len(script) and script[i] in "+~":
        m = re.compile(r"[+~]\d+").match(script, i)
        return m.end() if m is not None else i + 1
    return i


def _delimited(script: str, i: int, parts: int, delimiter: str = "") -> tuple[list[str], int]:
    """`parts` texts delimited by the character at `i` (or `delimiter`); the index after."""
    d = delimiter or script[i]
    i += 1
    found: list[str] = []
    start = i
    while i < len(script) and len(found) < parts:
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == d:
            found.append(script[start:i])
            start = i + 1
        i += 1
    return found, min(i, len(script))


def _line_end(script: str, i: int) -> int:
    end = script.find("\n", i)
    return len(script) if end < 0 else end


def _text_end(script: str, i: int) -> int:
    """The end of `a`/`i`/`c` text: the line, and the next ones after a trailing backslash."""
    end = _line_end(script, i)
    while end < len(script) and script[end - 1 : end] == "\\":
        end = _line_end(script, end + 1)
    return end
