"""Awk programs (`awk 'BEGIN {system("CMD")}'`): `system()`, `print | "CMD"`, `"CMD" | getline`
(and gawk's `|&` coprocess), and `@load` of an extension. A literal string command is shell
source (awk runs it with `sh -c`); one built at run time is asked. Also bpftrace's `system()`.
"""

from __future__ import annotations

import re

from shellgate.shell.programs.handed import Handed

_STRING = r'"((?:[^"\\\n]|\\.)*)"'
_SYSTEM = re.compile(r"(?<![\w$])system\s*\(\s*")
_LITERAL_ARG = re.compile(_STRING + r"\s*\)")
_PIPE = re.compile(r"(?<!\|)\|&?(?!\|)")
_BEFORE_GETLINE = re.compile(r"\s*getline\b")
_LITERAL_AFTER = re.compile(r"\s*" + _STRING + r"\s*(?:[;}\n)]|$)")
_LOAD = re.compile(r"@load\b")


def read(code: str, program: str, how: str) -> list[Handed]:
    """The commands an awk program runs."""
    if "system" not in code and "|" not in code and "@load" not in code:
        return []  # the common case: `{print $1}`
    out: list[Handed] = []
    for m in _SYSTEM.finditer(code):
        lit = _LITERAL_ARG.match(code, m.end())
        if lit is not None:
            out.append(Handed(program, f"{how}, `system()`", shell=_unescape(lit.group(1))))
        else:
            why = f"{program}'s `system()` runs a command built at run time"
            out.append(Handed(program, how, runtime=why))
    quoted = _quoted(code)
    for m in _PIPE.finditer(code):
        if m.start() in quoted:
            continue  # inside a string or a /regex/ (`/a|b/`)
        command: str | None
        if _BEFORE_GETLINE.match(code, m.end()):
            command = _string_before(code, m.start())
            said = f"{how}, `\"CMD\" | getline`"
        else:
            after = _LITERAL_AFTER.match(code, m.end())
            command = _unescape(after.group(1)) if after is not None else None
            said = f"{how}, `print | \"CMD\"`"
        if command is not None:
            out.append(Handed(program, said, shell=command))
        else:
            why = f"{program} pipes to or from a command built at run time"
            out.append(Handed(program, how, runtime=why))
    if _LOAD.search(code):
        out.append(Handed(program, how, runtime=f"{program} loads an extension (`@load`)"))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def _quoted(code: str) -> set[int]:
    """The positions of `|` inside a "string" or a /regex/, in one pass (a line ends both;
    a `/` after an operand is read as a regex too, as before: stricter)."""
    inside: set[int] = set()
    string = regex = False
    i = 0
    while i < len(code):
        c = code[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            string = regex = False
        elif c == '"' and not regex:
            string = not string
        elif c == "/" and not string:
            regex = not regex
        elif c == "|" and (string or regex):
            inside.add(i)
        i += 1
    return inside


def _string_before(code: str, at: int) -> str | None:
    """The "string" that ends right before `at` (blanks between), on its line."""
    j = at - 1
    while j >= 0 and code[j] in " \t":
        j -= 1
    if j < 0 or code[j] != '"':
        return None
    k = j - 1
    while k >= 0 and code[k] != "\n":
        if code[k] == '"' and (k == 0 or code[k - 1] != "\\"):
            return _unescape(code[k + 1 : j])
        k -= 1
    return None
