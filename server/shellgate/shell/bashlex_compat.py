"""Work-arounds for bash syntax bashlex 0.18 cannot parse but Codex's tree-sitter can.

Each rewrite keeps every character position, because words are read back from the original
source by bashlex's positions; it only ever runs after bashlex failed on the original text,
so a script bashlex accepts is never changed, and a real syntax error stays one.
- `<<'EOF'` / `<<"EOF"`: bashlex looks for the delimiter with its quotes: unquote it.
- `$((...))`: not implemented: becomes a same-length `$____` parameter (still dynamic).
- `[[ ... ]]`: not implemented: becomes `[  ...  ]`, an ordinary `[` command.
- `time` / `coproc` before a command: not implemented: blanked.
- `case W in P) cmds ;; esac`: not implemented: becomes `{ ... }` with the patterns blanked
  and each `;;` turned into a newline, so the arms' commands are parsed as a group.
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
    text = _KEYWORD_PREFIX.sub(lambda m: m[1] + " " * len(m[2]), text)
    return _rewrite_case(text) if "case" in text else text


_OPERATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")", "\n", "<", ">")
_COMMAND_START = frozenset(
    {None, "\n", ";", "&&", "||", "|", "|&", "&", "(", "{", "then", "do", "else", "elif", "!"}
)
_TERMINATORS = frozenset({";;", ";&", ";;&"})


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """Unquoted words and operators with their spans; quotes, escapes, substitutions and
    comments stay inside words (or are skipped), so keywords are only found where bash
    would see them."""
    tokens: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t":
            i += 1
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
        if op is not None:
            tokens.append((i, i + len(op), op))
            i += len(op)
            continue
        start = i
        while i < n and text[i] not in " \t\n;&|()<>":
            i = _skip_quoted(text, i)
        tokens.append((start, i, text[start:i]))
    return tokens


def _skip_quoted(text: str, i: int) -> int:
    """The index after the word character (or quoted/substituted run) starting at i."""
    ch = text[i]
    if ch == "\\":
        return i + 2
    if ch == "'":
        end = text.find("'", i + 1)
        return len(text) if end < 0 else end + 1
    if ch in '"`':
        j = i + 1
        while j < len(text) and text[j] != ch:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    if ch == "$" and text.startswith(("$(", "${"), i):
        end = _closing(text, i + 1) if text[i + 1] == "(" else text.find("}", i)
        return len(text) if end < 0 else end + 1
    return i + 1


def _rewrite_case(text: str) -> str:
    out = list(text)

    def blank(start: int, end: int, first: str = " ") -> None:
        out[start:end] = first + " " * (end - start - 1)

    tokens = _tokens(text)
    frames: list[str] = []  # per open `case`: "subject", "in", "pattern" or "body"
    prev: str | None = None
    case_start = 0
    for start, end, token in tokens:
        state = frames[-1] if frames else None
        at_command = prev in _COMMAND_START or prev in _TERMINATORS or prev == ")"
        if token == "case" and at_command and state in (None, "body"):
            frames.append("subject")
            case_start = start
        elif state == "subject":
            frames[-1] = "in"
        elif state == "in":
            if token != "in":
                return text  # not a case statement bashlex could use: leave it
            blank(case_start, end, "{")
            frames[-1] = "pattern"
        elif state == "pattern":
            if token == "esac":
                blank(start, end, "}")
                frames.pop()
            elif token == ")":
                blank(start, end)
                frames[-1] = "body"
            elif token != "\n":
                blank(start, end)
        elif state == "body":
            if token in _TERMINATORS:
                out[start:end] = " " * (end - start - 1) + "\n"
                frames[-1] = "pattern"
            elif token == "esac" and (at_command or prev == "\n"):
                blank(start, end, "}")
                frames.pop()
        prev = token
    return "".join(out)


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
