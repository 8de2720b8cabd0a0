"""One rules file, analysed: Codex's verdict on it plus every check beyond Codex."""

from __future__ import annotations

import gc
import hashlib
import os
import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from shellgate.codexconfig.requirements import (
    RequirementsError,
    parse_requirements,
    read_requirements_text,
)
from shellgate.lint.check_comments import CheckComment, find_check_comments
from shellgate.lint.chunked import ChunkedParser
from shellgate.lint.codex_errors import codex_findings
from shellgate.lint.examples import EXAMPLE_CODES, example_findings
from shellgate.lint.finding import Finding, Severity
from shellgate.lint.memo import CheckMemo
from shellgate.lint.model import RuleCall, contains
from shellgate.rules.errors import RulesError
from shellgate.rules.loader import ParsedFile, parse_text, read_rules_file
from shellgate.rules.rule import NetworkRule, PrefixRule
from shellgate.rules.source import SourceSpan
from shellgate.rules.syntax import Call

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True, eq=False)
class FileAnalysis:
    path: str
    text: str
    lines: list[str]  # split as LSP splits (\n, \r\n, \r)
    digest: str
    error: RulesError | None
    calls: tuple[Call, ...]  # every builtin call
    rule_calls: tuple[RuleCall, ...]  # prefix_rule calls with the rules each produced
    rules: tuple[PrefixRule, ...]
    host_executables: Mapping[str, tuple[str, ...]]
    network_rules: tuple[NetworkRule, ...]
    findings: tuple[Finding, ...]
    checks: tuple[CheckComment, ...] = field(default=())
    # For questions at a position: the calls' start lines, and each prefix_rule call's rules.
    call_lines: tuple[int, ...] = field(default=())
    rules_by_call: Mapping[int, tuple[PrefixRule, ...]] = field(default_factory=dict)

    def call_at(self, line: int, column: int) -> Call | None:
        """The builtin call at a 1-based position (the innermost, should calls nest)."""
        i = bisect_right(self.call_lines, line)
        best: Call | None = None
        for call in self.calls[max(0, i - 64) : i]:  # calls span a few lines; 64 is plenty
            if contains(call.span, line, column):
                best = call
        return best

    def rules_of(self, call: Call) -> tuple[PrefixRule, ...]:
        return self.rules_by_call.get(id(call), ())


def split_lines(text: str) -> list[str]:
    return text.split("\n") if "\r" not in text else _LINE_BREAK.split(text)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _rule_calls(parsed: ParsedFile) -> list[RuleCall]:
    by_start: dict[tuple[int, int], list[PrefixRule]] = {}
    for rule in parsed.rules:
        if rule.span is not None:
            by_start.setdefault((rule.span.line, rule.span.column), []).append(rule)
    return [
        (call, tuple(by_start.get((call.span.line, call.span.column), ())))
        for call in parsed.calls
        if call.callee == "prefix_rule"
    ]


def analyze(
    text: str, path: str, parser: ChunkedParser | None = None, memo: CheckMemo | None = None
) -> FileAnalysis:
    """Everything lint says about one file's text. Never raises for any text.

    `parser` and `memo` remember a document's previous version, so an edit re-evaluates only
    its chunk and re-checks only the rules it touched.
    """
    try:
        parsed = parser.parse(text, path) if parser is not None else parse_text(text, path)
    except Exception as exc:  # the loader promises not to raise; an editor must never crash
        err = RulesError(
            f"ShellGate could not evaluate this file ({type(exc).__name__}: {exc})",
            path=path,
            line=1,
            column=1,
            code="internal-error",
        )
        parsed = ParsedFile(path, (), (), {}, (), err)
    # Python's cyclic collector is paused, as the loader pauses it: the checks of a large file
    # make hundreds of thousands of objects, and each collection walked the parsed file's again
    # (70 % of the analysis of 40 000 rules), while nothing here forms cycles worth collecting.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _analysis(text, path, parsed, memo)
    finally:
        if paused:
            gc.enable()


def analyze_file(path: str) -> FileAnalysis:
    """The same for a file on disk; unreadable and non-UTF-8 files are an error finding."""
    if os.path.basename(path) == "requirements.toml":
        return analyze_requirements_file(path)
    try:
        text = read_rules_file(path)
    except RulesError as err:
        empty = ParsedFile(path, (), (), {}, (), err)
        return _analysis("", path, empty)
    return analyze(text, path)


def _analysis(
    text: str, path: str, parsed: ParsedFile, memo: CheckMemo | None = None
) -> FileAnalysis:
    lines = split_lines(text)
    rule_calls = _rule_calls(parsed)
    findings: list[Finding] = []
    err = parsed.error
    if err is not None:
        codex = codex_findings(err, lines, len(parsed.rules), parsed.calls)
        if err.code in EXAMPLE_CODES:
            # Codex names the first failing example; ours names each, with a fix. Keep Codex's
            # words on the one it names, and give it our fix.
            mine = {
                (f.span.line, f.span.column): f
                for f in example_findings(rule_calls, parsed.host_executables, lines)
            }
            for i, f in enumerate(codex):
                twin = mine.pop((f.span.line, f.span.column), None)
                if twin is not None and f.code in EXAMPLE_CODES:
                    codex[i] = replace(f, fixes=twin.fixes)
            findings += mine.values()
        findings += codex
    if parsed.rules:
        findings += (memo or CheckMemo()).findings(
            rule_calls, parsed.rules, parsed.host_executables, lines
        )
    checks = tuple(find_check_comments(text, path))
    for check in checks:
        if check.bad_expectation is not None:
            findings.append(
                Finding(
                    "check-bad-expectation",
                    Severity.ERROR,
                    f"`=> {check.bad_expectation}` names no decision "
                    "(expected allow, prompt or forbidden)",
                    check.span,
                )
            )
    findings.sort(key=lambda f: (f.span.line, f.span.column))
    return FileAnalysis(
        path=path,
        text=text,
        lines=lines,
        digest=digest(text),
        error=err,
        calls=parsed.calls,
        rule_calls=tuple(rule_calls),
        rules=parsed.rules,
        host_executables=parsed.host_executables,
        network_rules=parsed.network_rules,
        findings=tuple(findings),
        checks=checks,
        call_lines=tuple(c.span.line for c in parsed.calls),
        rules_by_call={id(c): r for c, r in rule_calls},
    )


def analyze_requirements_file(path: str) -> FileAnalysis:
    """The admin's requirements.toml on disk as a layer (see `analyze_requirements`)."""
    try:
        text = read_requirements_text(Path(path)) or ""
    except RequirementsError as err:
        return _requirements_analysis("", path, (), [_requirements_error(err, path)], err)
    return analyze_requirements(text, path)


def analyze_requirements(text: str, path: str) -> FileAnalysis:
    """A requirements.toml's text as a layer: its `[rules]` as rules (layer "requirements"),
    Codex's error or warnings as findings at the key. Never raises."""
    rules: tuple[PrefixRule, ...] = ()
    findings: list[Finding] = []
    error: RulesError | None = None
    try:
        req = parse_requirements(text, path, base=Path(path).parent)
        rules = tuple(req.prefix_rules())
        for w in req.warnings:
            end = w.column + len(w.key.split(".")[-1])
            span = SourceSpan(path, w.line, w.column, w.line, end)
            message = f"Codex ignores `{w.key}` (an unrecognized setting)"
            findings.append(Finding("requirements-ignored", Severity.WARNING, message, span))
    except RequirementsError as err:
        error = err
        findings.append(_requirements_error(err, path, text))
    return _requirements_analysis(text, path, rules, findings, error)


_KEY_AT = re.compile(r'[A-Za-z0-9_-]+|"[^"\n]*"|\[\[?[^\]\n]*\]?\]?|\{')


def _requirements_error(err: RulesError, path: str, text: str = "") -> Finding:
    """Codex's message on the key at fault (its whole word, for the editor's squiggle)."""
    line, column = max(err.line, 1), max(err.column, 1)
    lines = split_lines(text)
    m = _KEY_AT.match(lines[line - 1], column - 1) if line <= len(lines) else None
    end = column + (len(m.group()) if m else 1)
    span = SourceSpan(path, line, column, line, end)
    return Finding("requirements-invalid", Severity.ERROR, err.message, span)


def _requirements_analysis(
    text: str, path: str, rules: tuple[PrefixRule, ...], findings: list[Finding],
    error: RulesError | None,
) -> FileAnalysis:
    findings.sort(key=lambda f: (f.span.line, f.span.column))
    return FileAnalysis(
        path=path, text=text, lines=split_lines(text), digest=digest(text), error=error,
        calls=(), rule_calls=(), rules=rules, host_executables={}, network_rules=(),
        findings=tuple(findings),
    )  # fmt: skip
