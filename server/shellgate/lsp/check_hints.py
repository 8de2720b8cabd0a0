"""`# check: <command>` comments show Codex's decision inline: an inlay hint at the end of the
line, or a code lens above it for clients without inlay hints (Neovim 0.7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.lint.check_comments import CheckComment
from shellgate.lsp.convert import encoding, position, to_range
from shellgate.lsp.coverage import lenses
from shellgate.lsp.tracing import context_for, trace

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer


def _client_has_inlay_hints(ls: ShellGateServer) -> bool:
    td = ls.client_capabilities.text_document
    return td is not None and td.inlay_hint is not None


async def _labels(ls: ShellGateServer, uri: str) -> list[tuple[CheckComment, str]]:
    session = ls.session
    analysis = await session.analysis_async(uri)
    if analysis is None or not analysis.checks:
        return []
    merged = await session.merged_async(uri)
    context = context_for(session.settings)
    out = []
    for check in analysis.checks:
        ex = trace(check.command, merged, context)
        got = ex.decision.value if ex.decision else "refused before the rules"
        label = f"⇒ {got}"
        if check.expected is not None and ex.decision is not check.expected:
            label += f" ✗ expected {check.expected.value}"
        if merged.broken:
            label += " (Codex refuses the rules today)"
        out.append((check, label))
    return out


def register(server: ShellGateServer) -> None:
    @server.feature(T.TEXT_DOCUMENT_INLAY_HINT, T.InlayHintOptions(resolve_provider=False))
    async def inlay_hints(ls: ShellGateServer, params: T.InlayHintParams) -> list[T.InlayHint]:
        enc = encoding(ls)
        analysis = await ls.session.analysis_async(params.text_document.uri)
        if analysis is None:
            return []
        first, last = params.range.start.line + 1, params.range.end.line + 1
        hints = []
        for check, label in await _labels(ls, params.text_document.uri):
            if not first <= check.span.line <= last:
                continue
            at = position(analysis.lines, check.span.line, 10**9, enc)
            hints.append(T.InlayHint(position=at, label=label, padding_left=True))
        return hints

    @server.feature(T.TEXT_DOCUMENT_CODE_LENS)
    async def code_lenses(ls: ShellGateServer, params: T.CodeLensParams) -> list[T.CodeLens]:
        # Each rule's coverage (lsp/coverage.py) shares the one codeLens request with these.
        coverage = await lenses(ls, params.text_document.uri)
        if _client_has_inlay_hints(ls):
            return coverage  # the `# check:` answers are already inline
        enc = encoding(ls)
        analysis = await ls.session.analysis_async(params.text_document.uri)
        if analysis is None:
            return coverage
        return coverage + [
            T.CodeLens(
                range=to_range(analysis.lines, check.span, enc),
                command=T.Command(title=f"check: {label}", command=""),
            )
            for check, label in await _labels(ls, params.text_document.uri)
        ]

    def refresh() -> None:
        ws = server.client_capabilities.workspace
        if ws is None:
            return
        if ws.inlay_hint is not None and ws.inlay_hint.refresh_support:
            server.workspace_inlay_hint_refresh(None)
        if ws.code_lens is not None and ws.code_lens.refresh_support:
            server.workspace_code_lens_refresh(None)

    server.session.listeners.append(refresh)
