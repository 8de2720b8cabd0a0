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
_LITERAL_BEFORE = re.compile(_STRING + r"\s*$")
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
    for m in _PIPE.finditer(code):
        if _inside_string(code, m.start()) or _inside_regex(code, m.start()):
            continue
        if _BEFORE_GETLINE.match(code, m.end()):
            lit = _LITERAL_BEFORE.search(code[: m.start()].rstrip())
            said = f'{how}, `"CMD" | getline`'
        else:
            lit = _LITERAL_AFTER.match(code, m.end())
            said = f'{how}, `print | "CMD"`'
        if lit is not None:
            out.append(Handed(program, said, shell=_unescape(lit.group(1))))
        else:
            why = f"{program} pipes to or from a command built at run time"
            out.append(Handed(program, how, runtime=why))
    if _LOAD.search(code):
        out.append(Handed(program, how, runtime=f"{program} loads an extension (`@load`)"))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def _inside_string(code: str, at: int) -> bool:
    """Whether `at` is inside a "..." string (awk's strings cannot span lines)."""
    line_start = code.rfind("\n", 0, at) + 1
    quotes = len(re.findall(r'(?<!\\)"', code[line_start:at]))
    return quotes % 2 == 1


def _inside_regex(code: str, at: int) -> bool:
    """Whether `at` is inside a /regex/ (an alternation: `/a|b/`), judged on its line."""
    line_start = code.rfind("\n", 0, at) + 1
    before = re.sub(r'"(?:[^"\\]|\\.)*"', "", code[line_start:at])
    return len(re.findall(r"(?<!\\)/", before)) % 2 == 1
