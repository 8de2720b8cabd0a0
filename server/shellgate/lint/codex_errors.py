"""Codex's own verdict on a file, as findings: its error where it points, plus the file-level
consequence (Codex then ignores every rule, of this file and of every other)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from shellgate.lint.did_you_mean import suggest, suggest_decision
from shellgate.lint.finding import Edit, Finding, Fix, Severity
from shellgate.lint.model import text
from shellgate.rules.errors import RulesError
from shellgate.rules.signature import builtin_specs
from shellgate.rules.source import SourceSpan
from shellgate.rules.syntax import Call

_INVALID_DECISION = "invalid decision: "
_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")
_CALL_TO = re.compile(r"for call to `?([a-z_]+)")
_GOT = re.compile(r"\(got ([^)]*)\)$")


def error_span(err: RulesError) -> SourceSpan:
    if err.line <= 0:
        return SourceSpan(err.path, 1, 1, 1, 1)
    end_line, end_col = err.end_line, err.end_column
    if (end_line, end_col) <= (err.line, err.column):
        end_line, end_col = err.line, err.column + 1
    return SourceSpan(err.path, err.line, err.column, end_line, end_col)


def _value_span(span: SourceSpan, calls: Sequence[Call]) -> SourceSpan:
    """The error may cover `name = value`: the value is what a fix replaces."""
    for call in calls:
        if call.span.line > span.line or call.span.end_line < span.line:
            continue
        for argument in call.arguments:
            if argument.span == span or argument.value_span == span:
                return argument.value_span
    return span


def _misspelt_name(
    err: RulesError, span: SourceSpan, lines: Sequence[str]
) -> tuple[str, tuple[Fix, ...]] | None:
    """ " (did you mean `x`?)" and its fix, for an unknown builtin, argument or protocol."""
    if err.code == "undefined-name":
        m = _BACKTICKED.search(err.message)
        choices: Sequence[str] = list(builtin_specs())
    elif err.code == "unknown-argument":
        m = _BACKTICKED.search(err.message)
        call = _CALL_TO.search(err.message)
        spec = builtin_specs().get(call.group(1)) if call else None
        choices = [p.name for p in spec.params] if spec else []
    elif err.code == "bad-network-rule" and "protocol must be" in err.message:
        m = _GOT.search(err.message)
        choices = ["http", "https", "socks5_tcp", "socks5_udp"]
    else:
        return None
    if m is None:
        return None
    wrong = m.group(1)
    better = suggest(wrong, choices)
    if better is None or better == wrong:
        return None
    # The name sits at the start of the span (a call, `name = value`) or inside the value.
    line = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
    at = line.find(wrong, span.column - 1)
    fixes: tuple[Fix, ...] = ()
    inside = span.line < span.end_line or at + len(wrong) < span.end_column
    if at >= 0 and (at == span.column - 1 or inside):
        where = SourceSpan(span.path, span.line, at + 1, span.line, at + 1 + len(wrong))
        fixes = (Fix(f"Change to `{better}`", (Edit(where, better),), preferred=True),)
    return f" (did you mean `{better}`?)", fixes


def codex_findings(
    err: RulesError, lines: Sequence[str], rule_count: int, calls: Sequence[Call]
) -> list[Finding]:
    span = error_span(err)
    message = err.message
    fixes: tuple[Fix, ...] = ()
    if err.message.startswith(_INVALID_DECISION):
        raw = err.message[len(_INVALID_DECISION) :]
        better = suggest_decision(raw)
        if better is not None:
            message += f' (did you mean "{better}"?)'
            value = _value_span(span, calls)
            source = text(lines, value)
            if source[:1] in "\"'" and source[-1:] == source[:1]:
                edit = Edit(value, json.dumps(better))
                fixes = (Fix(f'Change to "{better}"', (edit,), preferred=True),)
    else:
        named = _misspelt_name(err, span, lines)
        if named is not None:
            message, fixes = message + named[0], named[1]
    first = SourceSpan(err.path, 1, 1, 1, max(1, len(lines[0]) + 1 if lines else 1))
    counted = {0: "all its rules are", 1: "its 1 rule is"}.get(rule_count,
                                                             f"its {rule_count} rules are")
    refused = Finding(
        "file-refused",
        Severity.ERROR,
        f"Codex refuses this whole file: {counted} ignored, and so are the rules of every "
        f"other file it loads with it (because of the error on line {err.line})",
        first,
        related=((span, "the error"),),
    )
    return [Finding(err.code, Severity.ERROR, message, span, fixes), refused]
