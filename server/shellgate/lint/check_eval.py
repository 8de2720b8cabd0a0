"""`# check: CMD => DECISION` comments whose rules disagree with them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shellgate.lint.check_comments import CheckComment
from shellgate.lint.finding import Finding, Severity
from shellgate.rules.decision import Decision

# What the chain decides for a command line (None: nothing decides, e.g. refused before rules).
Decide = Callable[[str], Decision | None]


def check_findings(checks: Sequence[CheckComment], decide: Decide) -> list[Finding]:
    findings: list[Finding] = []
    for check in checks:
        if check.expected is None:
            continue
        got = decide(check.command)
        if got is check.expected:
            continue
        findings.append(
            Finding(
                "check-mismatch",
                Severity.ERROR,
                f"expected {check.expected.value}, but Codex decides "
                f"{got.value if got else 'nothing'} for `{check.command}`",
                check.span,
            )
        )
    return findings
