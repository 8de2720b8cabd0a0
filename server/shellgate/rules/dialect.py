"""Where starlark-rust (Codex) and starlark-go differ on what a file may say, and the bounds
ShellGate adds: checks made on the text, or on our own syntax tree, before evaluation."""

from __future__ import annotations

import ast
import re

from shellgate.rules import literals, syntax
from shellgate.rules.errors import RulesError

MAX_NESTING = 1000  # brackets; deeper crashes Codex's parser and slows starlark-go's

# Code that can repeat work (loops, functions) is instrumented to count steps.
_KEYWORDS_THAT_REPEAT = tuple(re.compile(kw + r"\b") for kw in ("for", "def", "lambda", "while"))
_PRINT = re.compile(r"print\b")
_LONE_CR = re.compile(r"\r(?!\n)")
_BRACKETS = re.compile(r"[\[\](){}]")
_DEPTH = {"[": 1, "(": 1, "{": 1, "]": -1, ")": -1, "}": -1}


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


_BRACKET_BYTES = bytes.maketrans(b"[({])}", b"((()))")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[](){}")


def _may_nest_too_deep(text: str) -> bool:
    """A cheap bound (the exact scan is slow on large files): keep only the brackets, then
    delete innermost `()` pairs a few times; each pass lowers the deepest nesting by exactly
    one, and what is left nests no deeper than its length."""
    if text.count("(") + text.count("[") + text.count("{") <= MAX_NESTING:
        return False
    s = text.encode("utf-8", "surrogatepass").translate(_BRACKET_BYTES, _NOT_BRACKETS)
    passes = 0
    while passes < 16:
        shorter = s.replace(b"()", b"")
        if len(shorter) == len(s):
            break
        s, passes = shorter, passes + 1
    return passes + len(s) > MAX_NESTING


_FSTRING = re.compile(r"(?<![\w.])(?:[fF][rR]?|[rR][fF])[\"']")


def needs_instrumenting(text: str) -> bool:
    """Does the text use `for`, `def` or `lambda` (as words), or f-strings? These need the
    instrumented path. A literal-prefix search is ten times faster than `\\bfor\\b`."""
    if ("f'" in text or 'f"' in text or "F'" in text or 'F"' in text) and _FSTRING.search(text):
        return True
    if "_ords" in text or ".codepoints" in text:  # renamed (see `instrument`)
        return True
    if "%" in text and MAY_FORMAT_AT_RUN_TIME.search(text):
        return True
    return any(has_word(text, pattern) for pattern in _KEYWORDS_THAT_REPEAT)


def mentions_print(text: str) -> bool:
    return has_word(text, _PRINT)


def has_word(text: str, pattern: re.Pattern[str]) -> bool:
    """Does `pattern` (a word with a trailing \\b) occur as a whole word?"""
    for m in pattern.finditer(text):
        before = text[m.start() - 1] if m.start() else " "
        if not (before.isalnum() or before == "_"):
            return True
    return False


def check_text(text: str, path: str) -> None:
    """starlark-rust rejects what starlark-go accepts: a BOM, tabs in code; and a NUL in code
    is named as Codex names it, not as the sentinel `nul` swaps in for it; and bound the
    nesting depth (Codex's parser overflows its stack; Python's stops at 200 levels)."""
    if _may_nest_too_deep(text):
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
    nul = literals.first_in_code(text, "\0") if "\0" in text else None
    if nul is not None:  # Codex names the NUL itself (starlark-go would see the sentinel)
        raise RulesError(
            "Parse error: invalid input `\0`",
            path=path,
            line=text.count("\n", 0, nul) + 1,
            column=nul - (text.rfind("\n", 0, nul) + 1) + 1,
            code="syntax-error",
        )
    tab = literals.first_code_tab(text)
    if tab is not None:
        line = text.count("\n", 0, tab) + 1
        raise RulesError(
            "Parse error: tabs are not allowed",
            path=path,
            line=line,
            column=tab - (text.rfind("\n", 0, tab) + 1) + 1,
            code="syntax-error",
        )


def check_identifiers(all_nodes: list[ast.AST], lines: syntax.Lines, path: str) -> None:
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


# `%` conversions starlark-go accepts and starlark-rust refuses.
_PERCENT_DIRECTIVE = re.compile(r"%(.)", re.DOTALL)
_REFUSED_CONVERSIONS = frozenset("(ci")
MAY_USE_REFUSED_PERCENT = re.compile(r"%[(ci]")
# A `%` whose left operand is not a string literal: checked at run time (`instrument`).
MAY_FORMAT_AT_RUN_TIME = re.compile(r"[\w)\]}]\s*%")


def refused_conversion(fmt: str) -> str | None:
    """The first `%` conversion of `fmt` Codex refuses and starlark-go would take, if any."""
    for m in _PERCENT_DIRECTIVE.finditer(fmt):
        if m.group(1) in _REFUSED_CONVERSIONS:
            return m.group(1)
    return None


def check_percent_mapping(all_nodes: list[ast.AST], lines: syntax.Lines, path: str) -> None:
    """starlark-rust's `%` has no `%(name)s`, `%c` or `%i` (starlark-go's do). A literal
    format string is checked here; one built at run time when it is used (`instrument`)."""
    for n in all_nodes:
        if not (
            isinstance(n, ast.BinOp)
            and isinstance(n.op, ast.Mod)
            and isinstance(n.left, ast.Constant)
            and isinstance(n.left.value, str)
        ):
            continue
        bad = refused_conversion(n.left.value)
        if bad is not None:
            span = lines.span(path, n)
            raise RulesError(
                f"Unsupported format character: '{bad}'",
                path=path,
                line=span.line,
                column=span.column,
                end_line=span.end_line,
                end_column=span.end_column,
                code="eval-error",
            )


def check_no_while(all_nodes: list[ast.AST], lines: syntax.Lines, path: str) -> None:
    """`while` is a reserved word in starlark-rust (starlark-go with recursion takes it)."""
    for n in all_nodes:
        if isinstance(n, ast.While):
            span = lines.span(path, n)
            raise RulesError(
                "Parse error: cannot use reserved keyword `while`",
                path=path,
                line=span.line,
                column=span.column,
                code="syntax-error",
            )


def check_print(all_nodes: list[ast.AST], lines: syntax.Lines, path: str) -> None:
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
