"""Equivalent spellings that escape a `forbidden` or `prompt` rule.

Prefix rules compare tokens exactly, so `rm -fr`, `rm -r -f`, `git -C . push`,
`git push origin --force` and `/bin/rm` vs `rm` are different commands to them. For each
stricter rule we build such variants and ask the file's own policy what it decides for them;
a variant that gets a weaker decision is reported as a hint, with a fix where one is simple.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from shellgate.lint.describe import pattern_text, quote_token
from shellgate.lint.finding import Edit, Finding, Fix, Severity
from shellgate.lint.model import RuleCall, arg, literal
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule
from shellgate.rules.source import SourceSpan
from shellgate.rules.syntax import Call

_SHORT_FLAGS = re.compile(r"^-[A-Za-z]{2,4}$")
GIT_GLOBAL_OPTIONS = ("-C", "-c", "--git-dir", "--work-tree")


@dataclass(frozen=True, slots=True)
class Variant:
    kind: str
    argv: tuple[str, ...]
    what: str  # "the flags reordered", ...
    position: int  # the pattern position concerned (0 = program)


def _tokens(rule: PrefixRule) -> list[str]:
    return [rule.first, *(alts[0] for alts in rule.rest)]


def variants(rule: PrefixRule) -> Iterator[Variant]:
    tokens = _tokens(rule)
    for i, alts in enumerate(rule.rest, 1):
        token = alts[0]
        if _SHORT_FLAGS.match(token):
            letters = token[1:]
            reordered = "-" + letters[::-1]
            if reordered not in alts:
                yield Variant(
                    "flags-reordered",
                    (*tokens[:i], reordered, *tokens[i + 1 :]),
                    "the same flags in another order",
                    i,
                )
            split = [f"-{c}" for c in letters]
            yield Variant(
                "flags-split", (*tokens[:i], *split, *tokens[i + 1 :]), "the flags written apart", i
            )
    last = tokens[-1]
    if len(tokens) >= 3 and last.startswith("-") and not tokens[-2].startswith("-"):
        yield Variant(
            "flag-moved",
            (*tokens[:-1], "x", last),
            "the flag after another argument",
            len(tokens) - 1,
        )
    program = posixpath.basename(rule.first)
    if program == "git" and len(tokens) >= 2:
        yield Variant(
            "git-global-option", (rule.first, "-C", ".", *tokens[1:]), "a git global option", 0
        )
    if "/" in rule.first and program and program != rule.first:
        yield Variant("bare-name", (program, *tokens[1:]), "the bare program name", 0)


def _decision(policy: Policy, argv: Sequence[str]) -> Decision | None:
    matches = policy.matches_for(argv, resolve_host_executables=True)
    return Decision.strictest(m.decision for m in matches)


def _fix(variant: Variant, rule: PrefixRule, call: Call, lines: Sequence[str]) -> Fix | None:
    pattern = arg(call, "pattern")
    if pattern is None or not pattern.elements:
        return None
    elements = pattern.elements
    if variant.kind in ("flags-reordered", "bare-name"):
        index = variant.position
        if index >= len(elements):
            return None
        element = elements[index]
        value = literal(lines, element)
        current = value if isinstance(value, list) else [value]
        extra = variant.argv[index]
        if not all(isinstance(v, str) for v in current) or extra in current:
            return None
        new = json.dumps([*current, extra], ensure_ascii=False)
        return Fix(f"Also match `{extra}`", (Edit(element, new),), preferred=True)
    if variant.kind == "git-global-option":
        end = call.span
        text = (
            '\nprefix_rule(\n    pattern = ["git", ' + json.dumps(list(GIT_GLOBAL_OPTIONS)) + "],\n"
            f'    decision = "{rule.decision.value}",\n'
            '    justification = "git global options can hide any subcommand",\n)'
        )
        at = SourceSpan(end.path, end.end_line, end.end_column, end.end_line, end.end_column)
        return Fix("Add a rule for git's global options", (Edit(at, text),))
    return None


def evasion_findings(
    rule_calls: Sequence[RuleCall], policy: Policy, lines: Sequence[str]
) -> list[Finding]:
    findings: list[Finding] = []
    for call, rules in rule_calls:
        seen: set[str] = set()
        for rule in rules:
            if rule.decision is Decision.ALLOW:
                continue
            for variant in variants(rule):
                if variant.kind in seen:
                    continue
                got = _decision(policy, variant.argv)
                if got is not None and got.rank >= rule.decision.rank:
                    continue
                seen.add(variant.kind)
                shown = " ".join(quote_token(t) for t in variant.argv)
                verdict = "no rule matches it" if got is None else f"it is {got.value}"
                pattern = arg(call, "pattern")
                target = pattern.value_span if pattern is not None else call.span
                if pattern is not None and variant.position < len(pattern.elements):
                    target = pattern.elements[variant.position]
                fix = _fix(variant, rule, call, lines)
                findings.append(
                    Finding(
                        "equivalent-spelling",
                        Severity.HINT,
                        f"`{shown}` ({variant.what}) escapes this {rule.decision.value} rule "
                        f"`{pattern_text(rule)}`: {verdict}",
                        target,
                        (fix,) if fix is not None else (),
                    )
                )
    return findings
