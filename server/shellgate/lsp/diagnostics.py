"""Diagnostics: pulled by clients that can (LSP 3.17), pushed to the others.

Push is debounced per document and always reports the analysis of the latest text, so a
burst of edits ends in one publish for the final version.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.lint.analyze import FileAnalysis
from shellgate.lint.check_eval import check_findings
from shellgate.lint.finding import Finding
from shellgate.lint.managed import MANAGED_LAYERS, managed_rules, managed_shadow_findings
from shellgate.lsp.convert import SEVERITY, encoding, to_range
from shellgate.lsp.tracing import context_for, trace

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

log = logging.getLogger("shellgate.lsp")

PUSH_DELAY = 0.005  # seconds: lets a burst of queued edits land first (analyses use the latest)
UNNECESSARY = {"duplicate-rule", "redundant-rule", "shadowed-rule", "managed-shadowed"}


def _client_caps(ls: ShellGateServer) -> tuple[bool, bool]:
    """(related information, tags) as the client supports them."""
    td = ls.client_capabilities.text_document
    if td is None:
        return False, False
    if ls.session.supports_pull and td.diagnostic is not None:
        d = td.diagnostic
        return bool(d.related_information), d.tag_support is not None
    p = td.publish_diagnostics
    if p is None:
        return False, False
    return bool(p.related_information), p.tag_support is not None


def to_lsp(
    ls: ShellGateServer, uri: str, analysis: FileAnalysis, extra: list[Finding]
) -> list[T.Diagnostic]:
    enc = encoding(ls)
    related_ok, tags_ok = _client_caps(ls)
    lines = analysis.lines
    return [_one(f, uri, lines, enc, related_ok, tags_ok) for f in [*analysis.findings, *extra]]


async def check_expectations(
    ls: ShellGateServer, uri: str, analysis: FileAnalysis
) -> list[Finding]:
    """`# check: CMD => DECISION` against every layer merged (not just this file)."""
    if not any(c.expected is not None for c in analysis.checks):
        return []
    merged = await ls.session.merged_async(uri)
    context = context_for(ls.session.settings)
    return check_findings(analysis.checks, lambda command: trace(command, merged, context).decision)


async def managed_shadows(
    ls: ShellGateServer, uri: str, analysis: FileAnalysis
) -> list[Finding]:
    """User rules an admin's stricter rule makes moot (lint/managed.py); none in the admin's
    own files."""
    if not analysis.rule_calls:
        return []
    merged = await ls.session.merged_async(uri)
    if merged.layer_of(analysis.path) in MANAGED_LAYERS:
        return []
    return managed_shadow_findings(analysis, managed_rules(merged.policy.rules))


async def extra_findings(ls: ShellGateServer, uri: str, analysis: FileAnalysis) -> list[Finding]:
    return [*await check_expectations(ls, uri, analysis), *await managed_shadows(ls, uri, analysis)]


def _one(
    f: Finding, uri: str, lines: list[str], enc: str, related_ok: bool, tags_ok: bool
) -> T.Diagnostic:
    related = None
    if related_ok and f.related:
        related = [
            T.DiagnosticRelatedInformation(T.Location(uri, to_range(lines, span, enc)), text)
            for span, text in f.related
        ]
    return T.Diagnostic(
        range=to_range(lines, f.span, enc),
        message=f.message,
        severity=SEVERITY[f.severity],
        code=f.code,
        source="shellgate",
        related_information=related,
        tags=[T.DiagnosticTag.Unnecessary] if tags_ok and f.code in UNNECESSARY else None,
    )


def result_id(ls: ShellGateServer, analysis: FileAnalysis) -> str:
    return f"{ls.session.generation}:{analysis.digest}"


def register(server: ShellGateServer) -> None:
    pending: dict[str, asyncio.Task[None]] = {}

    @server.feature(
        T.TEXT_DOCUMENT_DIAGNOSTIC,
        T.DiagnosticOptions(
            identifier="shellgate", inter_file_dependencies=True, workspace_diagnostics=False
        ),
    )
    async def pull(
        ls: ShellGateServer, params: T.DocumentDiagnosticParams
    ) -> T.FullDocumentDiagnosticReport | T.UnchangedDocumentDiagnosticReport:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_async(uri)
        if analysis is None:
            return T.FullDocumentDiagnosticReport(items=[])
        rid = result_id(ls, analysis)
        expectations = any(c.expected is not None for c in analysis.checks)
        if params.previous_result_id == rid and not expectations:  # other files may matter
            return T.UnchangedDocumentDiagnosticReport(result_id=rid)
        extra = await extra_findings(ls, uri, analysis)
        items = to_lsp(ls, uri, analysis, extra)
        return T.FullDocumentDiagnosticReport(items=items, result_id=rid)

    async def push_later(ls: ShellGateServer, uri: str) -> None:
        await asyncio.sleep(PUSH_DELAY)
        analysis = await ls.session.analysis_async(uri)
        if analysis is None:
            return
        extra = await extra_findings(ls, uri, analysis)
        doc = ls.session.open_document(uri)
        if doc is None or doc.source != analysis.text:
            return  # closed, or edited meanwhile: that edit's own push reports the new text
        items = to_lsp(ls, uri, analysis, extra)
        ls.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri, items, version=doc.version)
        )

    def schedule(ls: ShellGateServer, uri: str) -> None:
        if ls.session.supports_pull:
            return
        old = pending.pop(uri, None)
        if old is not None:
            old.cancel()
        task = asyncio.get_running_loop().create_task(push_later(ls, uri))
        pending[uri] = task
        task.add_done_callback(lambda t: pending.pop(uri, None) if pending.get(uri) is t else None)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ShellGateServer, params: T.DidOpenTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ShellGateServer, params: T.DidChangeTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ShellGateServer, params: T.DidSaveTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ShellGateServer, params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = pending.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.session.forget(uri)
        if not ls.session.supports_pull:
            ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, []))

    def refresh() -> None:
        # Rules on disk changed: the merged layers feed `# check:` diagnostics.
        if server.session.supports_pull:
            ws = server.client_capabilities.workspace
            if ws is not None and ws.diagnostics is not None and ws.diagnostics.refresh_support:
                server.workspace_diagnostic_refresh(None)
            return
        for uri in list(server.workspace.text_documents):
            schedule(server, uri)

    server.session.listeners.append(refresh)
