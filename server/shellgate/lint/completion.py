"""What may be typed at a point of a rules file: builtins, arguments, decisions, protocols.

Editor-neutral: `complete(text_before_cursor)` says what kind of thing fits and the choices;
the server turns them into completion items. A light scan, not a parse: it must work on the
half-typed, unparsable text the user has while typing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from shellgate.rules.signature import BuiltinSpec, builtin_specs

_WINDOW = 4000  # characters scanned back: far more than any call
_IDENT_BEFORE_PAREN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")
_STRING_VALUE = re.compile(r"""([A-Za-z_]+)\s*=\s*(["'])([^"'\n]*)$""")
_ARG_NAME = re.compile(r"(?:^|[(,])\s*([A-Za-z_]*)$")
_GIVEN = re.compile(r"([A-Za-z_]+)\s*=")

DECISIONS = ("allow", "prompt", "forbidden")
PROTOCOLS = ("http", "https", "socks5_tcp", "socks5_udp")


class Kind(Enum):
    BUILTIN = "builtin"
    ARGUMENT = "argument"
    VALUE = "value"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Context:
    kind: Kind
    call: str | None = None  # the enclosing builtin call
    param: str | None = None  # for VALUE: the parameter whose string is being typed
    typed: str = ""  # the word typed so far
    given: tuple[str, ...] = ()  # arguments already present in the call


def _enclosing_call(before: str) -> tuple[str | None, int]:
    """The name of the innermost unclosed call and the index just after its `(`."""
    depth = 0
    quote: str | None = None
    # Walk backwards; strings are skipped on a best-effort basis (same-line quotes).
    for i in range(len(before) - 1, -1, -1):
        ch = before[i]
        if quote is not None:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    continue  # inside a list: keep looking for the call
                m = _IDENT_BEFORE_PAREN.search(before[:i])
                return (m.group(1) if m else None), i + 1
            depth -= 1
    return None, -1


def _open_quote(line: str) -> int:
    """Where the string the end of `line` is inside starts, or -1 (no escapes handled)."""
    quote: str | None = None
    start = -1
    for i, ch in enumerate(line):
        if quote is None and ch in "\"'":
            quote, start = ch, i
        elif ch == quote:
            quote = None
    return start if quote is not None else -1


def _strip_comment(line: str) -> str:
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote is None and ch == "#":
            return line[:i]
        if quote is None and ch in "\"'":
            quote = ch
        elif ch == quote:
            quote = None
    return line


def context_at(before: str) -> Context:
    raw_line = before.rsplit("\n", 1)[-1]
    if _strip_comment(raw_line) != raw_line:
        return Context(Kind.NONE)  # in a comment
    window = "\n".join(_strip_comment(x) for x in before[-_WINDOW:].split("\n"))
    line = window.rsplit("\n", 1)[-1]
    quote = _open_quote(line)
    scanned = window if quote < 0 else window[: len(window) - len(line) + quote]
    call, start = _enclosing_call(scanned)
    if quote >= 0:
        m = _STRING_VALUE.search(line)
        if m is not None and call is not None:
            return Context(Kind.VALUE, call, m.group(1), m.group(3))
        return Context(Kind.NONE)
    if call is None:
        word = re.search(r"[A-Za-z_]*$", line)
        return Context(Kind.BUILTIN, typed=word.group(0) if word else "")
    if call not in builtin_specs():
        return Context(Kind.NONE)
    inside = window[start:]
    m = _ARG_NAME.search(inside)
    if m is None:
        return Context(Kind.NONE)
    given = tuple(g for g in _GIVEN.findall(inside) if g != m.group(1))
    return Context(Kind.ARGUMENT, call, typed=m.group(1), given=given)


def value_choices(call: str, param: str) -> tuple[str, ...]:
    spec = builtin_specs().get(call)
    p = spec.param(param) if spec is not None else None
    if p is not None and p.choices:
        return p.choices
    if param == "decision":
        return (*DECISIONS, "deny") if call == "network_rule" else DECISIONS
    if param == "protocol":
        return PROTOCOLS
    return ()


def specs() -> list[BuiltinSpec]:
    return list(builtin_specs().values())
