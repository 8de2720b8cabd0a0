"""Load rules files: evaluate each with the real Starlark interpreter (starlark-go), the way
Codex 0.169.0 evaluates them with starlark-rust, and locate every call and error in the text.

`load_policy(paths)` is the fast path (the CLI): files without loops or functions run as they
are. `parse_text(text, path)` is the language server's: always instrumented (see
`instrument`), so every rule carries the span of the call that made it.
"""

from __future__ import annotations

import ast
import gc
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from shellgate.rules import examples, instrument, nul, syntax
from shellgate.rules.builtins import BuiltinError, Collector
from shellgate.rules.errors import RulesError
from shellgate.rules.policy import Policy
from shellgate.rules.rule import NetworkRule, PrefixRule
from shellgate.rules.signature import builtin_specs
from shellgate.rules.source import SourceSpan

# Work bounds (deliberate: Codex has none and would hang or exhaust memory).
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_STEPS = 1_000_000
MAX_NESTING = 1000  # brackets; deeper crashes Codex's parser and slows starlark-go's

# Code that can repeat work (loops, functions) is instrumented to count steps.
_KEYWORDS_THAT_REPEAT = tuple(re.compile(kw + r"\b") for kw in ("for", "def", "lambda"))
_PRINT = re.compile(r"print\b")
_LONE_CR = re.compile(r"\r(?!\n)")
_TAB_INDENT = re.compile(r"^[ ]*\t", re.MULTILINE)
_BRACKETS = re.compile(r"[\[\](){}]")
_DEPTH = {"[": 1, "(": 1, "{": 1, "]": -1, ")": -1, "}": -1}
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
        raise RulesError(
            "stream did not contain valid UTF-8",
            path=path,
            line=line,
            column=1,
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


class _StepLimit(Exception):
    pass


class _Run:
    """The state of one evaluation: step count, current call site, the exception raised."""

    def __init__(self, collector: Collector, site_spans: Sequence[SourceSpan | None]) -> None:
        self.collector = collector
        self.site_spans = site_spans
        self.steps = 0
        self.site = -1
        self.raised: BaseException | None = None
        self.raised_site = -1
        self.sentinel: str | None = None

    def tick(self) -> bool:
        self.steps += 1
        if self.steps > MAX_STEPS:
            self.raised = _StepLimit()
            raise self.raised
        return True

    def mark(self, site: int) -> dict[str, object]:
        self.tick()
        self.site = site
        return {}

    def wrap(self, fn: object) -> object:
        assert callable(fn)

        def builtin(*args: object, **kwargs: object) -> None:
            site, self.site = self.site, -1
            self.collector.span = (
                self.site_spans[site] if 0 <= site < len(self.site_spans) else None
            )
            if self.sentinel is not None:
                args = tuple(nul.restore(a, self.sentinel) for a in args)
                kwargs = {k: nul.restore(v, self.sentinel) for k, v in kwargs.items()}
            try:
                fn(*args, **kwargs)
            except BaseException as exc:
                self.raised, self.raised_site = exc, site
                raise
            finally:
                self.collector.span = None

        return builtin


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
    _check_dialect(text, path)
    # NULs (raw or escaped) become a same-length sentinel first: neither Python's parser nor
    # the binding takes them. Positions do not move, so `text` stays the reference.
    text, sentinel = nul.hide_nuls(text)
    lines = syntax.Lines(text)
    calls: list[syntax.Call] = []
    columns: instrument.ColumnMap | None = None
    site_spans: list[SourceSpan | None] = []
    site_lparens: list[tuple[int, int]] = []
    source = text
    if spans or _may_repeat(text):
        tree, reason = syntax.parse_module_or_reason(text)
        if tree is None:
            _syntax_check(text, path)  # a Starlark syntax error is reported as Codex would
            raise RulesError(
                f"ShellGate cannot analyse this file (its own parser says: {reason})",
                path=path,
                line=1,
                column=1,
                code="too-complex",
            )
        all_nodes = syntax.nodes(tree)
        _check_print(all_nodes, lines, path)
        if not text.isascii():
            _check_identifiers(all_nodes, lines, path)
        calls = syntax.collect_calls(all_nodes, lines, path)
        by_lparen = {c.lparen: c for c in calls}
        rewritten = instrument.rewrite(text, all_nodes, lines)
        source, columns = rewritten.text, rewritten.columns
        site_lparens = rewritten.sites
        site_spans = [by_lparen[lp].span if lp in by_lparen else None for lp in rewritten.sites]
    elif _has_word(text, _PRINT) or not text.isascii():
        tree = syntax.parse_module(text)
        if tree is not None:
            all_nodes = syntax.nodes(tree)
            _check_print(all_nodes, lines, path)
            if not text.isascii():
                _check_identifiers(all_nodes, lines, path)
    run = _Run(collector, site_spans)
    run.sentinel = sentinel
    first_pending = len(collector.pending)
    try:
        _exec(source, path, collector, run)
    except _StarlarkFailure as failure:
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


class _StarlarkFailure(Exception):
    def __init__(self, kind: str, message: str, line: int, column: int, backtrace: str = ""):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.backtrace = backtrace


_CONFIGURED = False


def _exec(source: str, path: str, collector: Collector, run: _Run) -> None:
    global _CONFIGURED
    if "starlark_go" not in sys.modules:
        # Go's collector runs less often (GOGC read once, when the runtime starts): loading
        # a 10 000-rule file takes a third less CPU. The variable is not left to children.
        preset = "GOGC" in os.environ
        os.environ.setdefault("GOGC", "400")
        import starlark_go  # lazy: the Go runtime starts only when a file is evaluated

        if not preset:
            del os.environ["GOGC"]
    import starlark_go

    if not _CONFIGURED:
        # Extended dialect: top-level for/if and rebinding; no while, no recursion, no set.
        starlark_go.configure_starlark(
            allow_global_reassign=True, allow_recursion=False, allow_set=False
        )
        _CONFIGURED = True
    # The binding does not hold references to the callables it is given (a temporary one
    # crashes the process): `functions` must stay alive until `exec` returns.
    functions: dict[str, object] = {k: run.wrap(v) for k, v in collector.functions().items()}
    functions[instrument.SITE] = run.mark
    functions[instrument.TICK] = run.tick
    try:
        starlark_go.Starlark(globals=functions).exec(source, filename=path)
    except starlark_go.SyntaxError as err:
        raise _StarlarkFailure("syntax", err.msg, err.line, err.column) from None
    except starlark_go.ResolveError as err:
        items = err.args[2] if len(err.args) > 2 else ()
        if items:
            item = items[0]
            raise _StarlarkFailure("resolve", item.msg, item.line, item.column) from None
        raise _StarlarkFailure("resolve", str(err), 0, 0) from None
    except starlark_go.EvalError as err:
        raise _StarlarkFailure(
            "eval", err.error, err.line, err.column, getattr(err, "backtrace", "")
        ) from None
    except starlark_go.StarlarkError as err:
        raise _StarlarkFailure("eval", str(err), 0, 0) from None
    except ValueError as err:  # e.g. a NUL the sentinel could not hide ("embedded null")
        raise _StarlarkFailure("syntax", str(err), 1, 1) from None


def _locate(
    failure: _StarlarkFailure,
    run: _Run,
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
    if isinstance(raised, _StepLimit):
        return RulesError(
            f"evaluation exceeded ShellGate's limit of {MAX_STEPS} steps (loop or call)",
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
    message = _codex_wording(failure.message)
    if failure.kind == "syntax":
        message = f"Parse error: {message}"
    return RulesError(message, path=path, line=line, column=column, code=code)


def _codex_wording(message: str) -> str:
    """starlark-go's message, worded as starlark-rust words it where the two are known."""
    message = re.sub(r"^.* in [^:\n]*:\d+:\d+: ", "", message)
    op = re.fullmatch(r"unknown binary op: (\w+) (\S+) (\w+)", message)
    if op:
        return (
            f"Operation `{op.group(2)}` not supported for types `{op.group(1)}` and "
            f"`{op.group(3)}`"
        )
    call = re.fullmatch(r"invalid call of non-function \((\w+)\)", message)
    if call:
        return f"Operation `call()` not supported on type `{call.group(1)}`"
    if message == "floored division by zero":
        return "Floor division by zero"
    m = re.fullmatch(r"undefined: (\w+)", message)
    if m:
        return f"Variable `{m.group(1)}` not found"
    if "load not implemented" in message:
        return "No imports are available"
    if "called recursively" in message:
        return "Starlark call stack overflow"
    return message


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


def _too_deep(text: str, path: str) -> None:
    depth = 0
    for m in _BRACKETS.finditer(text):
        depth += _DEPTH[m.group()]
        if depth > MAX_NESTING:
            line = text.count("\n", 0, m.start()) + 1
            raise RulesError(
                f"Parse error: brackets nested deeper than {MAX_NESTING} levels",
                path=path,
                line=line,
                column=m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1,
                code="too-deep",
            )


_FSTRING = re.compile(r"(?<![\w.])(?:[fF][rR]?|[rR][fF])[\"']")


def _may_repeat(text: str) -> bool:
    """Does the text use `for`, `def` or `lambda` (as words), or f-strings? These need the
    instrumented path. A literal-prefix search is ten times faster than `\\bfor\\b`."""
    if ("f'" in text or 'f"' in text or "F'" in text or 'F"' in text) and _FSTRING.search(text):
        return True
    return any(_has_word(text, pattern) for pattern in _KEYWORDS_THAT_REPEAT)


def _has_word(text: str, pattern: re.Pattern[str]) -> bool:
    """Does `pattern` (a word with a trailing \\b) occur as a whole word?"""
    for m in pattern.finditer(text):
        before = text[m.start() - 1] if m.start() else " "
        if not (before.isalnum() or before == "_"):
            return True
    return False


def _check_dialect(text: str, path: str) -> None:
    """starlark-rust rejects what starlark-go accepts: a BOM, tab indentation; and bound the
    nesting depth (Codex's parser overflows its stack; Python's stops at 200 levels)."""
    deltas = map(_DEPTH.__getitem__, _BRACKETS.findall(text))
    if max(accumulate(deltas), default=0) > MAX_NESTING:
        _too_deep(text, path)
    if text.startswith("\ufeff"):
        raise RulesError(
            "Parse error: invalid input `\ufeff`", path=path, line=1, column=1, code="syntax-error"
        )
    if "\r" in text:
        lone = _LONE_CR.search(text)
        if lone is not None:  # starlark-go takes it for a line break; starlark-rust refuses it
            line = text.count("\n", 0, lone.start()) + 1
            raise RulesError(
                "Parse error: invalid input `\\r`",
                path=path,
                line=line,
                column=lone.start() - (text.rfind("\n", 0, lone.start()) + 1) + 1,
                code="syntax-error",
            )
    tab = _TAB_INDENT.search(text) if "\t" in text else None
    if tab is not None:
        line = text.count("\n", 0, tab.start()) + 1
        raise RulesError(
            "Parse error: tab indentation is not allowed",
            path=path,
            line=line,
            column=tab.end() - tab.start(),
            code="syntax-error",
        )


def _check_identifiers(all_nodes: list[ast.AST], lines: syntax.Lines, path: str) -> None:
    """starlark-rust's identifiers are ASCII (starlark-go and Python take any letter)."""
    for n in all_nodes:
        name = getattr(n, "id", None) or getattr(n, "arg", None)
        if isinstance(n, (ast.FunctionDef, ast.Lambda)) and not isinstance(n, ast.Lambda):
            name = n.name
        if isinstance(name, str) and not name.isascii():
            span = lines.span(path, n)
            raise RulesError(
                f"Parse error: invalid identifier `{name}`",
                path=path,
                line=span.line,
                column=span.column,
                code="syntax-error",
            )


def _check_print(all_nodes: list[ast.AST], lines: syntax.Lines, path: str) -> None:
    """starlark-rust's standard globals have no `print` (starlark-go's do)."""
    bound = any(
        isinstance(n, ast.Name) and n.id == "print" and not isinstance(n.ctx, ast.Load)
        for n in all_nodes
    ) or any(isinstance(n, ast.FunctionDef) and n.name == "print" for n in all_nodes)
    if bound:
        return
    for n in all_nodes:
        if isinstance(n, ast.Name) and n.id == "print":
            span = lines.span(path, n)
            raise RulesError(
                "Variable `print` not found",
                path=path,
                line=span.line,
                column=span.column,
                end_line=span.end_line,
                end_column=span.end_column,
                code="undefined-name",
            )


def _syntax_check(text: str, path: str) -> None:
    """Raise Starlark's syntax/resolve error for `text`, if any, without running it."""
    import starlark_go

    try:
        starlark_go.Starlark().exec('fail("__sg_ok")\n' + text, filename=path)
    except starlark_go.SyntaxError as err:
        raise RulesError(
            f"Parse error: {err.msg}",
            path=path,
            line=err.line - 1,
            column=err.column,
            code="syntax-error",
        ) from None
    except (starlark_go.StarlarkError, ValueError):
        return
