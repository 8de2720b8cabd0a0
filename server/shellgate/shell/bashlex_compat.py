"""Work-arounds for bash syntax bashlex 0.18 cannot parse but Codex's tree-sitter can.

Each rewrite keeps every character position, because words are read back from the original
source by bashlex's positions; it only ever runs after bashlex failed on the original text,
so a script bashlex accepts is never changed, and a real syntax error stays one.
- `<<'EOF'` / `<<"EOF"`: bashlex looks for the delimiter with its quotes: unquote it.
- `$((...))`: not implemented: becomes a same-length `$____` parameter (still dynamic).
- `[[ ... ]]`: not implemented: becomes `[  ...  ]`, an ordinary `[` command.
- `time` / `coproc` before a command: not implemented: blanked.
`embedded_substitutions` finds the `$(...)` and backtick sources inside text bashlex keeps
raw (a `${x:-$(cmd)}` parameter, an unquoted heredoc body) so they can be parsed too.
"""

from __future__ import annotations

import re

_QUOTED_HEREDOC = re.compile(r"""(<<-?[ \t]*)(['"])([A-Za-z0-9_.-]+)\2""")
_DOUBLE_BRACKETS = re.compile(r"(?<![^\s;&|(!])(\[\[|\]\])(?=\s|$|;|&|\|)")
_KEYWORD_PREFIX = re.compile(r"((?:^|[;&|(!{\n])[ \t]*)(time|coproc)(?=[ \t])", re.MULTILINE)


def rewrite(script: str) -> str:
    text = _QUOTED_HEREDOC.sub(lambda m: m[1] + m[3] + "  ", script)
    text = _blank_arithmetic(text)
    text = _DOUBLE_BRACKETS.sub(lambda m: "[ " if m[1] == "[[" else " ]", text)
    return _KEYWORD_PREFIX.sub(lambda m: m[1] + " " * len(m[2]), text)


def _blank_arithmetic(text: str) -> str:
    out: list[str] = []
    i = 0
    while True:
        start = text.find("$((", i)
        end = _closing(text, start + 1) if start >= 0 else -1
        if end < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:start] + "$" + "_" * (end - start))
        i = end + 1


def _closing(text: str, open_at: int) -> int:
    """Index of the `)` matching the `(` at `open_at`, counting parentheses naively."""
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def embedded_substitutions(text: str) -> list[str]:
    """The sources of the `$(...)` and backtick substitutions inside raw text."""
    found: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("$(", i) and not text.startswith("$((", i):
            end = _closing(text, i + 1)
            if end < 0:
                break
            found.append(text[i + 2 : end])
            i = end + 1
        elif text[i] == "`":
            end = text.find("`", i + 1)
            if end < 0:
                break
            found.append(text[i + 1 : end])
            i = end + 1
        else:
            i += 1
    return found
