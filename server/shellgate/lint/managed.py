"""User rules the admin's tier makes moot: a managed rule (an `/etc/codex/rules` file, layer
"system", or a requirements.toml prefix rule, layer "requirements") with a stricter decision
matches every command the user's rule matches. Strictest wins across every layer, so the
user's rule never decides: an `allow` of `git push` under a managed `forbidden` of `git`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from shellgate.codexconfig import SYSTEM_FOLDER
from shellgate.lint.analyze import FileAnalysis, analyze_file
from shellgate.lint.describe import pattern_text
from shellgate.lint.finding import Finding, Severity
from shellgate.lint.overlap import covers, rule_target
from shellgate.lint.workspace import discover_layer_files
from shellgate.rules.rule import PrefixRule

MANAGED_LAYERS = frozenset({"system", "requirements"})


def managed_rules(rules: Iterable[PrefixRule]) -> list[PrefixRule]:
    return [r for r in rules if r.layer in MANAGED_LAYERS]


def managed_shadow_findings(analysis: FileAnalysis, managed: Sequence[PrefixRule]) -> list[Finding]:
    """A `managed-shadowed` warning on each prefix_rule of `analysis` (a user, project or extra
    rules file) whose every rule some managed rule covers with a stricter decision."""
    by_first: dict[str, list[PrefixRule]] = {}
    for rule in managed:
        by_first.setdefault(rule.first, []).append(rule)
    if not by_first:
        return []
    findings: list[Finding] = []
    for call, rules in analysis.rule_calls:
        winners = [_stricter_cover(r, by_first.get(r.first, ())) for r in rules]
        if not rules or any(w is None for w in winners):
            continue
        broad = winners[0]
        assert broad is not None
        where = "requirements.toml" if broad.layer == "requirements" else "a system rules file"
        if broad.span is not None:
            where = f"{os.path.basename(broad.span.path)}:{broad.span.line} ({broad.layer})"
        message = (
            f"this rule never decides: the admin's `{pattern_text(broad)}` "
            f"({broad.decision.value}, {where}) matches every command it matches, and the "
            "stricter decision wins over every layer"
        )
        findings.append(Finding("managed-shadowed", Severity.WARNING, message, rule_target(call)))
    return findings


def _stricter_cover(rule: PrefixRule, candidates: Iterable[PrefixRule]) -> PrefixRule | None:
    best: PrefixRule | None = None
    for broad in candidates:
        stricter = broad.decision.rank > (best or rule).decision.rank
        if stricter and covers(broad, rule):
            best = broad
    return best


def system_tier_rules(system_dir: Path | None = None) -> tuple[list[PrefixRule], set[str]]:
    """The admin's rules on disk (`/etc/codex/rules/*.rules`, then requirements.toml) with their
    layers, and the files they come from. A file that fails contributes nothing here: its
    error is its own lint finding when it is linted, and every entry point reports it."""
    system = Path(SYSTEM_FOLDER) if system_dir is None else system_dir
    files = [f for f in discover_layer_files(codex_home=None, project_roots=(), system_dir=system)
             if f.layer in MANAGED_LAYERS]  # fmt: skip
    rules: list[PrefixRule] = []
    for f in files:
        analysis = analyze_file(f.path)
        if analysis.error is None:
            rules += [r if r.layer else replace(r, layer=f.layer) for r in analysis.rules]
    return rules, {os.path.realpath(f.path) for f in files}
