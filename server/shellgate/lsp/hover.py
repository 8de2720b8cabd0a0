"""Hover: a rule spelt out with what decides its examples across all layers; the explain trace
of an example or a `# check:` command; the documentation of a builtin or an argument."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.codexconfig.editing import hover_at, is_requirements
from shellgate.lint.analyze import FileAnalysis
from shellgate.lint.describe import pattern_text, quote_token
from shellgate.lint.model import contains, literal, param_of
from shellgate.lint.rule_info import ExampleOutcome, example_outcomes, example_tokens
from shellgate.lint.workspace import MergedPolicy
from shellgate.lsp.convert import encoding, from_position, to_range
from shellgate.lsp.tracing import (
    codex_trust_notes,
    context_for,
    markdown_trace,
    refusal_note,
    trace,
    view_note,
)
from shellgate.rules.rule import PrefixRule
from shellgate.rules.signature import builtin_specs
from shellgate.rules.source import SourceSpan
from shellgate.rules.syntax import Call

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer


def _where(rule: PrefixRule, merged: MergedPolicy) -> str:
    if rule.span is None:
        return "added at run time"
    layer = rule.layer or merged.layer_of(rule.span.path) or "cli"
    return f"{os.path.basename(rule.span.path)}:{rule.span.line} ({layer})"


def _layer_label(path: str, merged: MergedPolicy) -> str:
    if path in merged.drafts:
        return "none: this file is not loaded by Codex (outside its rules folders)"
    layer = merged.layer_of(path) or "none: this file is not loaded by Codex"
    return f"{layer} (with your unsaved edits)" if path in merged.unsaved else layer


def _outcome_row(o: ExampleOutcome, own: Sequence[PrefixRule], merged: MergedPolicy) -> str:
    cmd = " ".join(quote_token(t) for t in o.tokens)
    expect = "must match" if o.param == "match" else "must not match"
    ok = o.matches_own == (o.param == "match")
    decided = o.decision.value if o.decision else "no rule (heuristics decide)"
    own_spans = {r.span for r in own}
    by = ", ".join(
        "this rule" if m.rule.span in own_spans else _where(m.rule, merged) for m in o.deciders
    )
    by = f" by {by}" if by else ""
    return f"| `{cmd}` | {expect} {'✓' if ok else '✗'} | **{decided}**{by} |"


def rule_markdown(
    call: Call,
    own: Sequence[PrefixRule],
    analysis: FileAnalysis,
    merged: MergedPolicy,
    codex_note: str | None = None,
) -> str:
    if not own:
        return f"**{call.callee}**: no rule (the file does not load; see the diagnostics)"
    rule = own[0]
    parts = [f"**prefix_rule** `{pattern_text(rule)}` → **{rule.decision.value}**"]
    if len(own) > 1:
        parts[0] += f"  \n({len(own)} rules: one per alternative of the first token)"
    facts = [
        f"- justification: {rule.justification}" if rule.justification else "- no justification",
        f"- layer: {_layer_label(analysis.path, merged)} · "
        f"{os.path.basename(analysis.path)}:{call.span.line}",
        "- matches any command that starts with these tokens (each `[a|b]` position: any one "
        "of them); the strictest matching rule of all layers wins",
    ]
    if codex_note:  # the editor runs with the project's rules; Codex itself may not
        facts.append(f"- Codex itself: {codex_note}")
    parts.append("\n".join(facts))
    outcomes = example_outcomes(call, own, analysis.lines, merged.policy)
    if outcomes:
        rows = ["| example | expected | all layers decide |", "|---|---|---|"]
        rows += [_outcome_row(o, own, merged) for o in outcomes]
        parts.append("\n".join(rows))
    parts += [n for n in (refusal_note(merged), view_note(merged)) if n]
    return "\n\n".join(parts)


def builtin_markdown(name: str) -> str | None:
    spec = builtin_specs().get(name)
    if spec is None:
        return None
    params = "\n".join(
        f"- `{p.name}`: {p.type}{'' if p.required else f' = {p.default}'}: {p.doc}"
        for p in spec.params
    )
    sig = ", ".join(p.name if p.required else f"{p.name}={p.default}" for p in spec.params)
    return f"```python\n{spec.name}({sig})\n```\n{spec.doc}\n\n{params}"


def param_markdown(call: Call, name: str) -> str | None:
    spec = builtin_specs().get(call.callee or "")
    p = spec.param(name) if spec is not None else None
    if p is None:
        return None
    default = "required" if p.required else f"default {p.default}"
    choices = f" One of: {', '.join(p.choices)}." if p.choices else ""
    return f"**{name}** ({p.type}, {default}) of `{call.callee}`\n\n{p.doc}{choices}"


def register(server: ShellGateServer) -> None:
    @server.feature(T.TEXT_DOCUMENT_HOVER)
    async def hover(ls: ShellGateServer, params: T.HoverParams) -> T.Hover | None:
        session = ls.session
        analysis = await session.analysis_async(params.text_document.uri)
        if analysis is None:
            return None
        enc = encoding(ls)
        line, column = from_position(analysis.lines, params.position, enc)
        if is_requirements(analysis.path):
            text = hover_at(analysis.text, analysis.path, line, column)
            return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text)) if text else None

        def answer(text: str, span: SourceSpan) -> T.Hover:
            return T.Hover(
                contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                range=to_range(analysis.lines, span, enc),
            )

        for check in analysis.checks:
            if check.span.line == line:
                merged = await session.merged_async(params.text_document.uri)
                ex = trace(check.command, merged, context_for(session.settings))
                head = f"**# check:** `{check.command}`"
                if check.expected is not None:
                    ok = ex.decision is check.expected
                    head += f" (expects {check.expected.value}: {'✓' if ok else '✗'})"
                return answer(head + "\n\n" + markdown_trace(ex, merged), check.span)

        call = analysis.call_at(line, column)
        if call is None:
            return None
        if contains(call.callee_span, line, column):
            text = builtin_markdown(call.callee or "")
            return answer(text, call.callee_span) if text else None
        own = analysis.rules_of(call)
        for argument in call.arguments:
            if not contains(argument.span, line, column):
                continue
            name = param_of(call, argument)
            if name is None:
                break
            if not contains(argument.value_span, line, column):
                text = param_markdown(call, name)
                return answer(text, argument.span) if text else None
            if name in ("match", "not_match"):
                for element in argument.elements:
                    if contains(element, line, column):
                        text = await _example_markdown(
                            ls, params.text_document.uri, analysis, element, name
                        )
                        return answer(text, element) if text else None
            break
        if call.callee != "prefix_rule":
            text = builtin_markdown(call.callee or "")
            return answer(text, call.callee_span) if text else None
        merged = await session.merged_async(params.text_document.uri)
        note = _codex_note(ls, analysis.path, merged)
        return answer(rule_markdown(call, own, analysis, merged, note), call.span)


def _codex_note(ls: ShellGateServer, path: str, merged: MergedPolicy) -> str | None:
    """When this project file's rules are ones Codex itself skips (project not trusted)."""
    if merged.layer_of(path) != "project":
        return None
    roots = [r for r in ls.session.roots if path.startswith(str(r) + os.sep)]
    for note in codex_trust_notes(ls.session.settings, roots):
        if not note["codexLoads"]:
            return str(note["message"])
    return None


async def _example_markdown(
    ls: ShellGateServer, uri: str, analysis: FileAnalysis, element: SourceSpan, param: str
) -> str | None:
    tokens = example_tokens(literal(analysis.lines, element))
    if tokens is None:
        return None
    merged = await ls.session.merged_async(uri)
    ex = trace(list(tokens), merged, context_for(ls.session.settings))
    head = f"**{param} example** `{' '.join(quote_token(t) for t in tokens)}`"
    return head + "\n\n" + markdown_trace(ex, merged)
