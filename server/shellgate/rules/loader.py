"""Load rules files: evaluate each with the real Starlark interpreter (starlark-go), the way
Codex 0.169.0 evaluates them with starlark-rust, and locate every call and error in the text.

`load_policy(paths)` is the fast path (the CLI): files without loops or functions run as they
are. `parse_text(text, path)` is the language server's: always instrumented (see
`instrument`), so every rule carries the span of the call that made it.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from shellgate.rules import dialect, examples, instrument, interpreter, literals, nul, syntax
from shellgate.rules.builtins import BuiltinError, Collector
from shellgate.rules.errors import RulesError
from shellgate.rules.policy import Policy
from shellgate.rules.rule import NetworkRule, PrefixRule
from shellgate.rules.signature import builtin_specs
from shellgate.rules.source import SourceSpan

# Work bounds (deliberate: Codex has none and would hang or exhaust memory).
MAX_FILE_BYTES = 16 * 1024 * 1024

_FRAME = re.compile(r"^\s*(.*):(\d+):(\d+): in ", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """What the language server needs of one file."""

    path: str
    calls: tuple[syntax.Call, ...]  # every builtin call found in the text (own parse)
    rules: tuple[PrefixRule, ...]
    host_executables: Mapping[str, tuple[str, ...]]
    network_rules: tuple[NetworkRule, ...]
    error: RulesError | None
    all_calls: tuple[syntax.Call, ...] = field(default=(), repr=False)


def load_policy(paths: Iterable[str | os.PathLike[str]], *, layer: str | None = None) -> Policy:
    """All files, in order, into one policy. Raises `RulesError` (the first error wins)."""
    collector = Collector(layer=layer)
    for raw in paths:
        path = os.fspath(raw)
        text = read_rules_file(path)
        hosts_before = dict(collector.host_executables)
        try:
            _evaluate(text, path, collector, spans=False)
        except RulesError as err:
            if err.line:
                raise
            # Locate it: evaluate again, instrumented (the error path only).
            again = Collector(host_executables=hosts_before, layer=layer)
            try:
                _evaluate(text, path, again, spans=True)
            except RulesError as located:
                if located.message == err.message:
                    raise located from None
            raise
    policy = Policy(collector.rules, collector.network_rules, collector.host_executables)
    return policy


def read_rules_file(path: str) -> str:
    """The file's text, or a `read` RulesError worded like Rust's io errors."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise RulesError(
            f"{os.strerror(err.errno or 0)} (os error {err.errno or 0})",
            path=path,
            code="unreadable",
            kind="read",
        ) from None
    if len(data) > MAX_FILE_BYTES:
        raise RulesError(
            f"file is larger than ShellGate's limit of {MAX_FILE_BYTES // (1024 * 1024)} MiB",
            path=path,
            code="file-too-large",
            kind="read",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        start = data.rfind(b"\n", 0, err.start) + 1  # the bytes before it on its line decode
        raise RulesError(
            "stream did not contain valid UTF-8",
            path=path,
            line=line,
            column=len(data[start : err.start].decode("utf-8")) + 1,
            code="not-utf8",
            kind="read",
        ) from None


def parse_text(
    text: str,
    path: str,
    host_executables: Mapping[str, Sequence[str]] | None = None,
) -> ParsedFile:
    """Evaluate one file's text for the editor: rules with spans, calls, the error if any.

    `host_executables` is what earlier files defined (examples are checked against it).
    """
    collector = Collector(
        host_executables={k: tuple(v) for k, v in (host_executables or {}).items()}
    )
    error: RulesError | None = None
    calls: list[syntax.Call] = []
    try:
        calls = _evaluate(text, path, collector, spans=True)
    except RulesError as err:
        error = err
        calls = _own_calls(text, path)
    names = builtin_specs().keys()
    return ParsedFile(
        path,
        tuple(c for c in calls if c.callee in names),
        tuple(collector.rules),
        dict(collector.host_executables),
        tuple(collector.network_rules),
        error,
        tuple(calls),
    )


def _own_calls(text: str, path: str) -> list[syntax.Call]:
    tree = syntax.parse_module(text)
    if tree is None:
        return []
    return syntax.collect_calls(syntax.nodes(tree), syntax.Lines(text), path)


def _evaluate(text: str, path: str, collector: Collector, *, spans: bool) -> list[syntax.Call]:
    """Evaluate one file into `collector`, then check its examples. Raises RulesError.

    Python's cyclic collector is paused meanwhile: the syntax tree of a large file is hundreds
    of thousands of objects, which every collection would walk again (it made parsing 2x
    slower), and nothing built here forms cycles worth collecting early."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _evaluate_unpaused(text, path, collector, spans=spans)
    finally:
        if paused:
            gc.enable()


def _evaluate_unpaused(
    text: str, path: str, collector: Collector, *, spans: bool
) -> list[syntax.Call]:
    # Literals starlark-rust reads and starlark-go or Python do not (see `literals`). Only
    # errors are mapped back to the original columns; spans on such lines are of the new text.
    text, moved = literals.normalize(text)
    if moved is None:
        return _evaluate_normalized(text, path, collector, spans=spans)
    try:
        return _evaluate_normalized(text, path, collector, spans=spans)
    except RulesError as err:
        err.column = moved.original(err.line, err.column) if err.column else 0
        if err.end_line == err.line and err.end_column:
            err.end_column = moved.original(err.end_line, err.end_column)
        raise


def _evaluate_normalized(
    text: str, path: str, collector: Collector, *, spans: bool
) -> list[syntax.Call]:
    dialect.check_text(text, path)
    # NULs (raw or escaped) become a same-length sentinel first: neither Python's parser nor
    # the binding takes them. Positions do not move, so `text` stays the reference.
    text, sentinel = nul.hide_nuls(text)
    lines = syntax.Lines(text)
    calls: list[syntax.Call] = []
    columns: instrument.ColumnMap | None = None
    site_spans: list[SourceSpan | None] = []
    site_lparens: list[tuple[int, int]] = []
    source = text
    in_order = False  # sites counted as calls are made (see `instrument.in_source_order`)
    refused_percent = "%" in text and dialect.MAY_USE_REFUSED_PERCENT.search(text) is not None
    needs_instrumenting = dialect.needs_instrumenting(text)
    if spans or needs_instrumenting:
        tree, reason = syntax.parse_module_or_reason(text)
        if tree is None:
            # A Starlark syntax error is reported as Codex would.
            interpreter.syntax_check(text, path)
            raise RulesError(
                f"ShellGate cannot analyse this file (its own parser says: {reason})",
                path=path,
                line=1,
                column=1,
                code="too-complex",
            )
        all_nodes = syntax.nodes(tree)
        if dialect.mentions_print(text):
            dialect.check_print(all_nodes, lines, path)
        if needs_instrumenting:  # else no `while` in the text
            dialect.check_no_while(all_nodes, lines, path)
        if refused_percent:
            dialect.check_percent_mapping(all_nodes, lines, path)
        if not text.isascii():
            dialect.check_identifiers(all_nodes, lines, path)
        calls = syntax.collect_calls(all_nodes, lines, path)
        if not needs_instrumenting and instrument.in_source_order(
            tree, all_nodes, set(collector.functions())
        ):
            # Calls made in source order: the K-th builtin call is calls[K], no rewrite.
            in_order = True
            site_lparens = [c.lparen for c in calls]
            site_spans = [c.span for c in calls]
        else:
            by_lparen = {c.lparen: c for c in calls}
            rewritten = instrument.rewrite(text, all_nodes, lines)
            source, columns = rewritten.text, rewritten.columns
            site_lparens = rewritten.sites
            site_spans = [by_lparen[lp].span if lp in by_lparen else None for lp in site_lparens]
    elif dialect.mentions_print(text) or not text.isascii() or refused_percent:
        tree = syntax.parse_module(text)
        if tree is not None:
            all_nodes = syntax.nodes(tree)
            dialect.check_print(all_nodes, lines, path)
            if refused_percent:
                dialect.check_percent_mapping(all_nodes, lines, path)
            if not text.isascii():
                dialect.check_identifiers(all_nodes, lines, path)
    run = interpreter.Run(collector, site_spans)
    run.in_order = in_order
    run.sentinel = sentinel
    first_pending = len(collector.pending)
    try:
        interpreter.run_starlark(source, path, collector, run)
    except interpreter.StarlarkFailure as failure:
        raise _locate(failure, run, text, path, columns, calls, site_lparens) from None
    for pending in collector.pending[first_pending:]:
        try:
            examples.validate(pending, collector.host_executables)
        except examples.ExampleError as err:
            span = pending.rules[0].span if pending.rules else None
            call = _call_at(calls, span)
            target = _argument_span(call, err.param, err.index, "prefix_rule") if call else None
            where = target or span
            raise RulesError(
                err.message,
                path=path,
                line=where.line if where else 0,
                column=where.column if where else 0,
                end_line=where.end_line if where else None,
                end_column=where.end_column if where else None,
                code=err.code,
            ) from None
    return calls


def _locate(
    failure: interpreter.StarlarkFailure,
    run: interpreter.Run,
    text: str,
    path: str,
    columns: instrument.ColumnMap | None,
    calls: list[syntax.Call],
    site_lparens: Sequence[tuple[int, int]],
) -> RulesError:
    """A Starlark failure as a RulesError placed on the call or argument at fault."""
    raised = run.raised if failure.kind == "eval" else None
    # Where the failing call's `(` is: from our site marker if we have one, else the backtrace.
    line, column = failure.line, failure.column
    frames = [(f, int(a), int(b)) for f, a, b in _FRAME.findall(failure.backtrace)]
    user_frames = [(a, b) for f, a, b in frames if f == path]
    if (raised is not None or not line) and user_frames:
        line, column = user_frames[-1]
    if columns is not None and line:
        column = columns.original(line, column)
    limit = isinstance(raised, (interpreter.CallStackOverflow, interpreter.StepLimit))
    if limit and 0 <= run.raised_site < len(site_lparens):
        hit = next((c for c in calls if c.lparen == site_lparens[run.raised_site]), None)
        if hit is not None:  # on the call being made, as Codex shows it
            line, column = hit.span.line, hit.span.column
    if isinstance(raised, interpreter.CallStackOverflow):
        return RulesError(
            "Starlark call stack overflow",
            path=path,
            line=line,
            column=column,
            code="call-stack-overflow",
        )
    if isinstance(raised, interpreter.StepLimit):
        return RulesError(
            f"evaluation exceeded ShellGate's limit of {interpreter.MAX_STEPS} steps "
            "(loop or call)",
            path=path,
            line=line,
            column=column,
            code="too-many-steps",
        )
    if isinstance(raised, BuiltinError):
        if 0 <= run.raised_site < len(site_lparens):
            line, column = site_lparens[run.raised_site]
        if not calls:
            calls = _own_calls(text, path)
        call = next((c for c in calls if c.lparen == (line, column)), None)
        target = None
        if call is not None:
            target = _argument_span(call, raised.param, raised.index, call.callee)
            target = target or call.span
        where = target or SourceSpan(path, line, column, line, column)
        return RulesError(
            raised.message,
            path=path,
            line=where.line,
            column=where.column,
            end_line=where.end_line,
            end_column=where.end_column,
            code=raised.code,
        )
    code = {"syntax": "syntax-error", "resolve": "undefined-name"}.get(failure.kind, "eval-error")
    message = interpreter.codex_wording(failure.message)
    if failure.kind == "syntax":
        message = f"Parse error: {message}"
    return RulesError(message, path=path, line=line, column=column, code=code)


def _argument_span(
    call: syntax.Call | None, param: str | None, index: int | None, callee: str | None
) -> SourceSpan | None:
    if call is None or param is None:
        return None
    spec = builtin_specs().get(callee or "")
    position = None
    if spec is not None:
        position = next((i for i, p in enumerate(spec.params) if p.name == param), None)
    arg = call.argument(param, position)
    if arg is None:
        return None
    if index is not None and index < len(arg.elements):
        return arg.elements[index]
    return arg.span


def _call_at(calls: Sequence[syntax.Call], span: SourceSpan | None) -> syntax.Call | None:
    if span is None:
        return None
    return next((c for c in calls if c.span == span), None)
