"""Completion of builtins (as snippets), their arguments, decisions and protocols."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as T

from shellgate.codexconfig.editing import choices_at, is_requirements
from shellgate.lint.completion import Kind, context_at, specs, value_choices
from shellgate.lsp.session import document_path
from shellgate.rules.signature import BuiltinSpec

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

# Snippet bodies for a new call: the required arguments, then the usual optional ones.
SNIPPETS = {
    "prefix_rule": (
        "prefix_rule(\n"
        '    pattern = ["${1:git}", "${2:push}"],\n'
        '    decision = "${3|prompt,forbidden,allow|}",\n'
        '    justification = "${4:why this rule exists}",\n'
        '    match = ["${1:git} ${2:push}${5: origin main}"],\n'
        ")$0"
    ),
    "network_rule": (
        'network_rule(host = "${1:example.com}", protocol = "${2|https,http,socks5_tcp,'
        'socks5_udp|}", decision = "${3|allow,prompt,forbidden,deny|}")$0'
    ),
    "host_executable": ('host_executable(name = "${1:git}", paths = ["${2:/usr/bin/}${1:git}"])$0'),
}


def _doc(text: str) -> T.MarkupContent:
    return T.MarkupContent(kind=T.MarkupKind.Markdown, value=text)


def _builtin_item(spec: BuiltinSpec, snippets: bool) -> T.CompletionItem:
    params = ", ".join(p.name for p in spec.params)
    body = SNIPPETS.get(spec.name) if snippets else None
    return T.CompletionItem(
        label=spec.name,
        kind=T.CompletionItemKind.Function,
        detail=f"{spec.name}({params})",
        documentation=_doc(spec.doc),
        insert_text=body or f"{spec.name}(",
        insert_text_format=T.InsertTextFormat.Snippet if body else T.InsertTextFormat.PlainText,
    )


def items_at(before: str, snippets: bool) -> list[T.CompletionItem]:
    ctx = context_at(before)
    if ctx.kind is Kind.BUILTIN:
        return [_builtin_item(s, snippets) for s in specs()]
    by_name = {s.name: s for s in specs()}
    if ctx.kind is Kind.ARGUMENT and ctx.call in by_name:
        spec = by_name[ctx.call]
        out = []
        for i, p in enumerate(spec.params):
            if p.name in ctx.given:
                continue
            placeholder = '"$1"' if p.type == "str" else "[$1]" if p.type == "list" else "$1"
            if p.choices:
                placeholder = '"${1|' + ",".join(p.choices) + '|}"'
            out.append(
                T.CompletionItem(
                    label=p.name,
                    kind=T.CompletionItemKind.Property,
                    detail=f"{p.type}{'' if p.required else ' = ' + str(p.default)}",
                    documentation=_doc(p.doc),
                    sort_text=f"{i:02d}",
                    insert_text=f"{p.name} = {placeholder}" if snippets else f"{p.name} = ",
                    insert_text_format=T.InsertTextFormat.Snippet
                    if snippets
                    else T.InsertTextFormat.PlainText,
                )
            )
        return out
    if ctx.kind is Kind.VALUE and ctx.call and ctx.param:
        return [
            T.CompletionItem(label=v, kind=T.CompletionItemKind.EnumMember, sort_text=f"{i:02d}")
            for i, v in enumerate(value_choices(ctx.call, ctx.param))
        ]
    return []


_KINDS = {
    "key": T.CompletionItemKind.Property,
    "value": T.CompletionItemKind.EnumMember,
    "table": T.CompletionItemKind.Module,
}


def requirements_items(before: str) -> list[T.CompletionItem]:
    """requirements.toml: keys of the table at the cursor, values of its key, table names."""
    return [
        T.CompletionItem(
            label=c.label,
            kind=_KINDS[c.kind],
            documentation=_doc(c.doc) if c.doc else None,
            sort_text=f"{i:03d}",
            insert_text=c.insert,
        )
        for i, c in enumerate(choices_at(before))
    ]


def register(server: ShellGateServer) -> None:
    @server.feature(
        T.TEXT_DOCUMENT_COMPLETION,
        T.CompletionOptions(trigger_characters=['"', "'", "(", ","]),
    )
    def complete(ls: ShellGateServer, params: T.CompletionParams) -> T.CompletionList:
        doc = ls.session.open_document(params.text_document.uri)
        if doc is None:
            return T.CompletionList(is_incomplete=False, items=[])
        lines = doc.lines
        pos = doc.position_codec.position_from_client_units(lines, params.position)
        # Only the text before the cursor matters: a rules file's last few thousand characters,
        # a requirements.toml's whole head (its tables).
        requirements = is_requirements(document_path(doc.uri))
        start = 0 if requirements else max(0, pos.line - 80)
        before = "".join(lines[start : pos.line])
        if pos.line < len(lines):
            before += lines[pos.line][: pos.character]
        if requirements:
            return T.CompletionList(is_incomplete=False, items=requirements_items(before))
        td = ls.client_capabilities.text_document
        item_caps = td.completion.completion_item if td and td.completion else None
        snippets = bool(item_caps and item_caps.snippet_support)
        return T.CompletionList(is_incomplete=False, items=items_at(before, snippets))
