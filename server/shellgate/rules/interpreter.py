"""Running starlark-go: its configuration, the hooks the instrumented text calls (step count,
call sites), and its failures, worded as starlark-rust (Codex) words them where known."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence

from shellgate.rules import dialect, instrument, nul
from shellgate.rules.builtins import Collector
from shellgate.rules.errors import RulesError
from shellgate.rules.source import SourceSpan

MAX_STEPS = 1_000_000  # loop iterations and calls (deliberate: Codex has no bound)
# Codex's call stack holds 50 frames: user functions and our builtins count (measured with the
# 0.169.0 binary: 49 nested calls of a function work, 50 fail; 49 plus prefix_rule fail).
MAX_DEPTH = 49


class StepLimit(Exception):
    pass


class CallStackOverflow(Exception):
    pass


class Run:
    """The state of one evaluation: step count, current call site, the exception raised."""

    def __init__(self, collector: Collector, site_spans: Sequence[SourceSpan | None]) -> None:
        self.collector = collector
        self.site_spans = site_spans
        self.steps = 0
        self.site = -1
        self.raised: BaseException | None = None
        self.raised_site = -1
        self.sentinel: str | None = None
        self.depth = 0
        # The file's builtin calls are made in source order, unmarked: the next is this site.
        self.in_order = False
        self.next_site = 0

    def tick(self) -> bool:
        self.steps += 1
        if self.steps > MAX_STEPS:
            self.raised = StepLimit()
            raise self.raised
        return True

    def enter(self) -> None:
        self.tick()
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.raised = CallStackOverflow()
            raise self.raised

    def leave(self) -> None:
        self.depth -= 1

    def mark(self, site: int, enters: bool = False) -> dict[str, object]:
        """Call `site` is about to be made (its arguments are evaluated); `enters` when it
        may run user code, which then counts towards the call depth until it leaves."""
        self.raised_site = site  # where a step or depth limit is hit, if it is hit here
        if enters:
            self.enter()
        else:
            self.tick()
        self.raised_site = -1
        self.site = site
        return {}

    def wrap(self, fn: object) -> object:
        assert callable(fn)
        if not self.site_spans and self.sentinel is None:
            # Plain files: no call sites, no depth (nothing enters), no NULs to restore.
            def plain(*args: object, **kwargs: object) -> None:
                try:
                    fn(*args, **kwargs)
                except BaseException as exc:
                    self.raised, self.raised_site = exc, -1
                    raise

            return plain

        def builtin(*args: object, **kwargs: object) -> None:
            if self.in_order:  # as `mark` would have been called for it
                self.mark(self.next_site)
                self.next_site += 1
            site, self.site = self.site, -1
            self.collector.span = (
                self.site_spans[site] if 0 <= site < len(self.site_spans) else None
            )
            if self.sentinel is not None:
                args = tuple(nul.restore(a, self.sentinel) for a in args)
                kwargs = {k: nul.restore(v, self.sentinel) for k, v in kwargs.items()}
            try:
                if self.depth + 1 > MAX_DEPTH:  # the builtin's own frame
                    raise CallStackOverflow()
                fn(*args, **kwargs)
            except BaseException as exc:
                self.raised, self.raised_site = exc, site
                raise
            finally:
                self.collector.span = None

        return builtin


def check_format(value: object) -> object:
    """The left operand of a `%` (see `instrument`): a format string Codex refuses fails."""
    if isinstance(value, str):
        bad = dialect.refused_conversion(value)
        if bad is not None:
            raise ValueError(f"Unsupported format character: '{bad}'")
    return value


class StarlarkFailure(Exception):
    def __init__(self, kind: str, message: str, line: int, column: int, backtrace: str = ""):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.backtrace = backtrace


_CONFIGURED = False


def run_starlark(source: str, path: str, collector: Collector, run: Run) -> None:
    global _CONFIGURED
    if "starlark_go" not in sys.modules:
        # Go's collector runs less often (GOGC read once, when the runtime starts): loading
        # a 10 000-rule file takes a third less CPU. The variable is not left to children.
        preset = "GOGC" in os.environ
        os.environ.setdefault("GOGC", "400")
        import starlark_go  # lazy: the Go runtime starts only when a file is evaluated

        if not preset:
            del os.environ["GOGC"]
    # lazy: the Go runtime starts only when a file is evaluated
    import starlark_go

    if not _CONFIGURED:
        # Extended dialect: top-level for/if and rebinding, no set. Recursion is allowed (the
        # instrumentation bounds its depth as Codex does); `while`, which comes with it in
        # starlark-go, is refused beforehand by `dialect`.
        starlark_go.configure_starlark(
            allow_global_reassign=True, allow_recursion=True, allow_set=False
        )
        _CONFIGURED = True
    # The binding does not hold references to the callables it is given (a temporary one
    # crashes the process): `functions` must stay alive until `exec` returns.
    functions: dict[str, object] = {k: run.wrap(v) for k, v in collector.functions().items()}
    functions[instrument.SITE] = run.mark
    functions[instrument.TICK] = run.tick
    functions[instrument.FORMAT] = check_format
    functions[instrument.ENTER] = run.enter
    functions[instrument.LEAVE] = run.leave
    try:
        starlark_go.Starlark(globals=functions).exec(source, filename=path)
    except starlark_go.SyntaxError as err:
        raise StarlarkFailure("syntax", err.msg, err.line, err.column) from None
    except starlark_go.ResolveError as err:
        items = err.args[2] if len(err.args) > 2 else ()
        if items:
            item = items[0]
            raise StarlarkFailure("resolve", item.msg, item.line, item.column) from None
        raise StarlarkFailure("resolve", str(err), 0, 0) from None
    except starlark_go.EvalError as err:
        raise StarlarkFailure(
            "eval", err.error, err.line, err.column, getattr(err, "backtrace", "")
        ) from None
    except starlark_go.StarlarkError as err:
        raise StarlarkFailure("eval", str(err), 0, 0) from None
    except ValueError as err:  # e.g. a NUL the sentinel could not hide ("embedded null")
        raise StarlarkFailure("syntax", str(err), 1, 1) from None


def codex_wording(message: str) -> str:
    """starlark-go's message, worded as starlark-rust words it where the two are known."""
    message = re.sub(r"^.* in [^:\n]*:\d+:\d+: ", "", message)
    op = re.fullmatch(r"unknown binary op: (\w+) (\S+) (\w+)", message)
    if op:
        return (
            f"Operation `{op.group(2)}` not supported for types `{op.group(1)}` and `{op.group(3)}`"
        )
    call = re.fullmatch(r"invalid call of non-function \((\w+)\)", message)
    if call:
        return f"Operation `call()` not supported on type `{call.group(1)}`"
    attr = re.fullmatch(
        r"(\w+) has no \.(?:__sg_)?(\w+) field or method( \(did you mean .*)?", message
    )
    if attr:
        return f"Object of type `{attr.group(1)}` has no attribute `{attr.group(2)}`"
    if "during iteration" in message:
        return "This operation mutates an iterable for an iterator while iterating."
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


def syntax_check(text: str, path: str) -> None:
    """Raise Starlark's syntax/resolve error for `text`, if any, without running it."""
    # lazy: the Go runtime starts only when a file is checked
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
