"""Rules that load but do not say what their author meant: no justification on `forbidden`,
tokens with spaces (a shell never produces them), `*` taken for a wildcard."""

from __future__ import annotations

import re
from collections.abc import Sequence

from shellgate.lint.edits import insert_after
from shellgate.lint.finding import Finding, Fix, Severity
from shellgate.lint.model import RuleCall, arg
from shellgate.rules.decision import Decision

_SPACE = re.compile(r"\s")
_SUSPECT = re.compile(r"[\s*]")


def hygiene_findings(rule_calls: Sequence[RuleCall]) -> list[Finding]:
    findings: list[Finding] = []
    for call, rules in rule_calls:
        if not rules:
            continue
        rule = rules[0]
        if rule.decision is Decision.FORBIDDEN and arg(call, "justification") is None:
            decision = arg(call, "decision")
            last = max(call.arguments, key=lambda a: (a.span.end_line, a.span.end_column))
            text = ', justification = "TODO: say why this is forbidden and what to do instead"'
            findings.append(
                Finding(
                    "missing-justification",
                    Severity.WARNING,
                    "`forbidden` without a justification: Codex tells the agent and the user "
                    "only that it is forbidden, not why or what to do instead",
                    decision.value_span if decision is not None else call.callee_span,
                    (Fix("Add a justification", (insert_after(last.span, text),)),),
                )
            )
        firsts = tuple(dict.fromkeys(r.first for r in rules))
        if not _SUSPECT.search("\0".join([*firsts, *(t for alts in rule.rest for t in alts)])):
            continue  # the usual case, decided with one search
        pattern = arg(call, "pattern")
        elements = pattern.elements if pattern is not None else ()
        positions = [firsts, *rule.rest]
        for i, alts in enumerate(positions):
            target = elements[i] if i < len(elements) else call.span
            for token in alts:
                if _SPACE.search(token):
                    findings.append(
                        Finding(
                            "token-has-space",
                            Severity.WARNING,
                            f"the token {token!r} contains whitespace: a command split by the "
                            "shell never has such a token, so this never matches; write "
                            "each word as its own token",
                            target,
                        )
                    )
                    break
                if "*" in token:
                    findings.append(
                        Finding(
                            "literal-wildcard",
                            Severity.WARNING,
                            f"`*` in {token!r} is matched literally: prefix rules have no "
                            "wildcards (a shorter pattern already matches any further words)",
                            target,
                        )
                    )
                    break
    return findings
