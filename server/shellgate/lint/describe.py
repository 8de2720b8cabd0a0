"""Rules and patterns spelt out for people: `git push [--force|-f]`."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from shellgate.lint.model import arg, text
from shellgate.rules.rule import PrefixRule
from shellgate.rules.syntax import Call


def quote_token(token: str) -> str:
    # Display only: how a person would type the token at a shell prompt.
    return shlex.quote(token) if token else "''"


def alternatives_text(alts: tuple[str, ...]) -> str:
    unique = tuple(dict.fromkeys(alts))
    if len(unique) == 1:
        return quote_token(unique[0])
    return "[" + "|".join(quote_token(a) for a in unique) + "]"


def pattern_text(rule: PrefixRule) -> str:
    return " ".join([quote_token(rule.first), *(alternatives_text(a) for a in rule.rest)])


def where(rule: PrefixRule) -> str:
    if rule.span is None:
        return "?"
    return f"line {rule.span.line}"


def call_title(call: Call, rules: Sequence[PrefixRule], lines: Sequence[str]) -> str:
    """A short name for a builtin call: its pattern, host or executable name."""
    if rules:
        firsts = list(dict.fromkeys(r.first for r in rules))
        head = quote_token(firsts[0]) if len(firsts) == 1 else alternatives_text(tuple(firsts))
        return " ".join([head, *(alternatives_text(a) for a in rules[0].rest)])
    for name in ("pattern", "host", "name"):
        argument = arg(call, name)
        if argument is not None:
            return " ".join(text(lines, argument.value_span).split())[:80]
    return call.callee or "call"
