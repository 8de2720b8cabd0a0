"""The "add a not_match example" refactoring: a near miss that documents the rule's edge."""

from __future__ import annotations

import json
from collections.abc import Sequence

from shellgate.lint.edits import insert_after
from shellgate.lint.finding import Edit, Fix
from shellgate.lint.model import arg, text
from shellgate.rules.rule import PrefixRule
from shellgate.rules.syntax import Call


def add_not_match(call: Call, rules: Sequence[PrefixRule], lines: Sequence[str]) -> Fix | None:
    """The pattern minus its last token: the closest command the rule must not match."""
    if not rules or not rules[0].rest:
        return None
    rule = rules[0]
    tokens = [rule.first, *(alts[0] for alts in rule.rest[:-1])]
    example = json.dumps(" ".join(tokens) if all(" " not in t for t in tokens) else tokens)
    existing = arg(call, "not_match")
    if existing is not None:
        if existing.elements:
            edit = insert_after(existing.elements[-1], f", {example}")
        elif text(lines, existing.value_span).strip() == "[]":
            edit = Edit(existing.value_span, f"[{example}]")
        else:
            return None
    else:
        if not call.arguments:
            return None
        last = max(call.arguments, key=lambda a: (a.span.end_line, a.span.end_column))
        edit = insert_after(last.span, f", not_match = [{example}]")
    return Fix(f"Add a not_match example: {' '.join(tokens)}", (edit,))
