"""`allow` on a program that runs commands through its options, configuration or inline code
(`git -c alias.x='!CMD'`, `tar --to-command=CMD`, `awk 'BEGIN {system("CMD")}'`), allowed by
its name alone (`prefix_rule(pattern=["git"])`): informational.

Codex's rules see such a command as `git …`, so an allow rule for `git` allows what git runs
too; where ShellGate is the gate (its hooks, the MCP `shell` tool, `shellgate run`) each command
a program runs is judged as its own (shell/programs), so a forbidden one is still refused. The
finding says which of the program's ways run commands, and that ShellGate judges them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from shellgate.lint.describe import pattern_text
from shellgate.lint.finding import Finding, Severity
from shellgate.lint.model import RuleCall, arg
from shellgate.lint.runners import _why as runner_why
from shellgate.rules.decision import Decision


def program_findings(rule_calls: Sequence[RuleCall]) -> list[Finding]:
    from shellgate.shell.programs import ways_of  # deferred: the programs' table (~1 ms)

    findings: list[Finding] = []
    for call, rules in rule_calls:
        for rule in rules:
            if rule.decision is not Decision.ALLOW or rule.rest or runner_why(rule) is not None:
                continue  # a longer pattern names a use; a runner's own warning says more
            program = posixpath.basename(rule.first) or rule.first
            ways = ways_of(program)
            if ways is None:
                continue
            target = arg(call, "pattern") or arg(call, "decision")
            findings.append(
                Finding(
                    "allow-hands-commands",
                    Severity.INFO,
                    f"`allow` on `{pattern_text(rule)}`: `{program}` runs commands through "
                    f"{ways}; Codex's rules see only `{program} …`, while ShellGate as the gate "
                    "(its hooks, MCP shell, shellgate run) judges each command it runs on its "
                    "own, so a forbidden one is still refused and one decided at run time asked",
                    target.value_span if target is not None else call.span,
                )
            )
            break  # one finding per call
    return findings
