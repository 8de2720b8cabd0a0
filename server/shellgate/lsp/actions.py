"""Code actions: the quick fixes lint attaches to its findings, and "add a not_match example"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.lint.finding import Finding, Fix
from shellgate.lint.not_match import add_not_match
from shellgate.lsp.convert import encoding, from_range, to_range

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer


def _overlaps(a: T.Range, b: T.Range) -> bool:
    def key(p: T.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def register(server: ShellGateServer) -> None:
    @server.feature(
        T.TEXT_DOCUMENT_CODE_ACTION,
        T.CodeActionOptions(
            code_action_kinds=[T.CodeActionKind.QuickFix, T.CodeActionKind.RefactorRewrite]
        ),
    )
    async def actions(ls: ShellGateServer, params: T.CodeActionParams) -> list[T.CodeAction]:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_async(uri)
        if analysis is None:
            return []
        enc = encoding(ls)
        lines = analysis.lines

        def action(fix: Fix, kind: str, finding: Finding | None) -> T.CodeAction:
            edits = [T.TextEdit(to_range(lines, e.span, enc), e.new_text) for e in fix.edits]
            diagnostics = None
            if finding is not None:
                diagnostics = [
                    d
                    for d in params.context.diagnostics
                    if d.code == finding.code and d.range == to_range(lines, finding.span, enc)
                ] or None
            return T.CodeAction(
                title=fix.title,
                kind=kind,
                diagnostics=diagnostics,
                is_preferred=fix.preferred or None,
                edit=T.WorkspaceEdit(changes={uri: edits}),
            )

        out: list[T.CodeAction] = []
        for finding in analysis.findings:
            if finding.fixes and _overlaps(to_range(lines, finding.span, enc), params.range):
                out += [action(fix, T.CodeActionKind.QuickFix, finding) for fix in finding.fixes]
        start = from_range(lines, params.range, enc, analysis.path)
        call = analysis.call_at(start.line, start.column)
        if call is not None and call.callee == "prefix_rule":
            own = analysis.rules_of(call)
            fix = add_not_match(call, own, lines)
            if fix is not None:
                out.append(action(fix, T.CodeActionKind.RefactorRewrite, None))
        only = params.context.only
        if only:
            out = [a for a in out if any(str(a.kind).startswith(str(k)) for k in only)]
        return out
