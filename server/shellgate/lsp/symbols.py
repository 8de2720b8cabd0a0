"""Document symbols: the file's rules as an outline (examples nested under their rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.lint.describe import call_title
from shellgate.lint.model import arg, text
from shellgate.lsp.convert import encoding, to_range
from shellgate.rules.rule import PrefixRule
from shellgate.rules.syntax import Call

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

KINDS = {
    "prefix_rule": T.SymbolKind.Function,
    "network_rule": T.SymbolKind.Constant,
    "host_executable": T.SymbolKind.Variable,
}


def _detail(call: Call, rules: Sequence[PrefixRule], lines: Sequence[str]) -> str:
    if rules:
        return rules[0].decision.value
    decision = arg(call, "decision")
    if decision is not None:
        return text(lines, decision.value_span).strip("\"'")
    return "allow" if call.callee == "prefix_rule" else ""


def register(server: ShellGateServer) -> None:
    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def symbols(
        ls: ShellGateServer, params: T.DocumentSymbolParams
    ) -> list[T.DocumentSymbol] | list[T.SymbolInformation]:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_async(uri)
        if analysis is None:
            return []
        enc = encoding(ls)
        lines = analysis.lines
        td = ls.client_capabilities.text_document
        ds = td.document_symbol if td is not None else None
        nested = bool(ds and ds.hierarchical_document_symbol_support)
        flat: list[T.SymbolInformation] = []
        tree: list[T.DocumentSymbol] = []
        for call in analysis.calls:
            rules = analysis.rules_of(call)
            name = call_title(call, rules, lines) or (call.callee or "call")
            kind = KINDS.get(call.callee or "", T.SymbolKind.Function)
            whole = to_range(lines, call.span, enc)
            if not nested:
                location = T.Location(uri, whole)
                flat.append(T.SymbolInformation(name=name, kind=kind, location=location))
                continue
            children = []
            for param in ("match", "not_match"):
                argument = arg(call, param)
                for element in argument.elements if argument is not None else ():
                    rng = to_range(lines, element, enc)
                    children.append(
                        T.DocumentSymbol(
                            name=text(lines, element).strip() or "''",
                            detail=param,
                            kind=T.SymbolKind.String,
                            range=rng,
                            selection_range=rng,
                        )
                    )
            tree.append(
                T.DocumentSymbol(
                    name=name,
                    detail=f"{call.callee} · {_detail(call, rules, lines)}",
                    kind=kind,
                    range=whole,
                    selection_range=to_range(lines, call.callee_span, enc),
                    children=children or None,
                )
            )
        return tree if nested else flat
