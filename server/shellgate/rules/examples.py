"""Deferred `match` / `not_match` validation (spec A.5), with 0.169.0's Debug-formatted text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shellgate.rules import shlex_rs
from shellgate.rules.builtins import PendingExamples
from shellgate.rules.policy import Policy, PrefixRuleMatch
from shellgate.rules.rule import PrefixRule


class ExampleError(Exception):
    """`param` is `match` or `not_match`; `index` the first failing example."""

    def __init__(self, message: str, code: str, param: str, index: int, call_index: int):
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param
        self.index = index
        self.call_index = call_index


def validate(pending: PendingExamples, host_executables: Mapping[str, Sequence[str]]) -> None:
    policy = Policy(pending.rules, host_executables=host_executables)
    for i, example in enumerate(pending.not_match):
        found = policy.matches_for(example, resolve_host_executables=True)
        if found:
            raise ExampleError(
                f"expected example to not match rule `{debug_match(found[0])}`: "
                f"{shlex_rs.join(example)}",
                "example-matched",
                "not_match",
                i,
                pending.call_index,
            )
    unmatched = [
        (i, ex)
        for i, ex in enumerate(pending.match)
        if not policy.matches_for(ex, resolve_host_executables=True)
    ]
    if unmatched:
        rules = ", ".join(debug_str(debug_rule(r)) for r in pending.rules)
        examples = ", ".join(debug_str(shlex_rs.join(ex)) for _, ex in unmatched)
        raise ExampleError(
            "expected every example to match at least one rule. "
            f"rules: [{rules}]; unmatched examples: [{examples}]",
            "example-not-matched",
            "match",
            unmatched[0][0],
            pending.call_index,
        )


def debug_str(s: str) -> str:
    """Rust's `{:?}` of a str."""
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == "\0":
            out.append("\\0")
        elif ord(c) < 0x20 or ord(c) == 0x7F or 0x80 <= ord(c) < 0xA0:
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _debug_option(value: str | None, wrap: str = "") -> str:
    if value is None:
        return "None"
    inner = debug_str(value)
    return f"Some({wrap}({inner}))" if wrap else f"Some({inner})"


def debug_rule(rule: PrefixRule) -> str:
    rest = ", ".join(
        f"Single({debug_str(alts[0])})"
        if len(alts) == 1
        else "Alts([" + ", ".join(debug_str(a) for a in alts) + "])"
        for alts in rule.rest
    )
    return (
        "PrefixRule { pattern: PrefixPattern { canonical_matching: "
        f"{'true' if rule.canonical_matching else 'false'}, first: {debug_str(rule.first)}, "
        f"rest: [{rest}] }}, decision: {rule.decision.name.title()}, "
        f"justification: {_debug_option(rule.justification)} }}"
    )


def debug_match(m: PrefixRuleMatch) -> str:
    prefix = ", ".join(debug_str(t) for t in m.matched_prefix)
    return (
        f"PrefixRuleMatch {{ matched_prefix: [{prefix}], decision: {m.decision.name.title()}, "
        f"resolved_program: {_debug_option(m.resolved_program, 'AbsolutePathBuf')}, "
        f"justification: {_debug_option(m.justification)} }}"
    )

