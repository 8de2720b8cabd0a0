"""Every failing `match` / `not_match` example, each on its own element.

Codex stops at the first failing example and names the rest only in one long message; here each
example that fails gets its own diagnostic and a fix. Run only when the loader reported an
example error: when it did not, every example of the file passed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shellgate.lint.describe import pattern_text
from shellgate.lint.edits import remove_element
from shellgate.lint.finding import Finding, Fix, Severity
from shellgate.lint.model import RuleCall, arg, literal
from shellgate.rules import shlex_rs
from shellgate.rules.policy import Policy

EXAMPLE_CODES = frozenset({"example-not-matched", "example-matched"})


def _tokens(value: object) -> list[str] | None:
    if isinstance(value, str):
        return shlex_rs.split(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def example_findings(
    rule_calls: Sequence[RuleCall],
    host_executables: Mapping[str, Sequence[str]],
    lines: Sequence[str],
) -> list[Finding]:
    findings: list[Finding] = []
    for call, rules in rule_calls:
        if not rules:
            continue
        policy = Policy(rules, host_executables=host_executables)
        shown = pattern_text(rules[0])
        for param, must_match in (("not_match", False), ("match", True)):
            argument = arg(call, param)
            if argument is None:
                continue
            for i, element in enumerate(argument.elements):
                tokens = _tokens(literal(lines, element))
                if not tokens:
                    continue
                matched = bool(policy.matches_for(tokens, resolve_host_executables=True))
                if matched == must_match:
                    continue
                message = (
                    f"this example does not match the rule `{shown}`, so Codex refuses the file"
                    if must_match
                    else f"this not_match example matches the rule `{shown}`, so Codex refuses "
                    "the file"
                )
                fix = Fix("Remove this example", (remove_element(argument.elements, i),))
                findings.append(
                    Finding(
                        "example-not-matched" if must_match else "example-matched",
                        Severity.ERROR,
                        message,
                        element,
                        (fix,),
                    )
                )
    return findings
