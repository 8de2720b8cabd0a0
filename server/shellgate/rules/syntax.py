"""Our own parse of a rules file, for positions: every call, every argument, every element.

Starlark's syntax is (nearly) a subset of Python's, so Python's `ast` reads it. Columns here are
1-based and count characters (as starlark-go's do); `ast` counts UTF-8 bytes, hence `_col`.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass

from shellgate.rules.source import SourceSpan


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a call. `name` is None for a positional one (then `index` counts)."""

    name: str | None
    index: int
    span: SourceSpan
    value_span: SourceSpan
    # The spans of a list/tuple literal's elements, so errors land on the element at fault.
    elements: tuple[SourceSpan, ...]
    star: str = ""


@dataclass(frozen=True, slots=True)
class Call:
    callee: str | None
    span: SourceSpan
    callee_span: SourceSpan
    lparen: tuple[int, int]
    arguments: tuple[Argument, ...]

    def argument(self, name: str | None, position: int | None = None) -> Argument | None:
        for arg in self.arguments:
            if name is not None and arg.name == name:
                return arg
            if position is not None and arg.name is None and not arg.star and arg.index == position:
                return arg
        return None


class Lines:
    """Line texts and byte -> character column conversion."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.ascii = text.isascii()  # then byte columns are character columns

    def col(self, line: int, byte_col: int) -> int:
        """0-based character column of a 0-based UTF-8 byte column on a 1-based line."""
        if line - 1 >= len(self.lines):
            return byte_col
        s = self.lines[line - 1]
        if s.isascii():
            return byte_col
        return len(s.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def span(self, path: str, node: ast.AST) -> SourceSpan:
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        start, end = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", None) or 0
        if self.ascii:
            return SourceSpan(path, line, start + 1, end_line, end + 1)
        return SourceSpan(
            path, line, self.col(line, start) + 1, end_line, self.col(end_line, end) + 1
        )

    def char_at(self, line: int, col0: int) -> str:
        if 1 <= line <= len(self.lines) and 0 <= col0 < len(self.lines[line - 1]):
            return self.lines[line - 1][col0]
        return "\n" if 1 <= line <= len(self.lines) else ""


# Fields that never hold a node (a name, a flag, a constant's value): not looked into.
_SCALAR_FIELDS = frozenset({"id", "arg", "attr", "kind", "conversion", "is_async", "level",
                            "module", "type_comment", "name"})  # fmt: skip
_NODE_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node under `tree` (including it), in no particular order: one pass, shared by
    every consumer (it is several times faster than repeated `ast.walk`s)."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    AST = ast.AST
    fields_of = _NODE_FIELDS
    while stack:
        node = stack.pop()
        out.append(node)
        fields = fields_of.get(type(node))
        if fields is None:
            fields = tuple(f for f in node._fields if f not in _SCALAR_FIELDS)
            fields_of[type(node)] = fields
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, AST))
            elif isinstance(value, AST):
                stack.append(value)
    return out


def parse_module(text: str) -> ast.Module | None:
    """Python's parse of the text, or None when Python cannot read it."""
    return parse_module_or_reason(text)[0]


def parse_module_or_reason(text: str) -> tuple[ast.Module | None, str]:
    """Python's parse of the text, or None and Python's reason."""
    try:
        with warnings.catch_warnings():  # Codex keeps unknown escapes: no warning for them
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(text, mode="exec"), ""
    except SyntaxError as err:
        return None, f"{err.msg} (line {err.lineno})" if err.lineno else err.msg
    except (ValueError, RecursionError, MemoryError) as err:
        return None, str(err) or type(err).__name__


def find_lparen(lines: Lines, line: int, col0: int) -> tuple[int, int]:
    """From just after a callee, the `(` that opens its call, as (line, 1-based column)."""
    while 1 <= line <= len(lines.lines):
        s = lines.lines[line - 1]
        while col0 < len(s):
            c = s[col0]
            if c == "(":
                return line, col0 + 1
            if c == "#":
                break
            col0 += 1
        line, col0 = line + 1, 0
    return line, col0 + 1


def collect_calls(all_nodes: list[ast.AST], lines: Lines, path: str) -> list[Call]:
    calls: list[Call] = []
    for node in all_nodes:
        if not isinstance(node, ast.Call):
            continue
        callee_span = lines.span(path, node.func)
        lparen = find_lparen(lines, callee_span.end_line, callee_span.end_column - 1)
        arguments: list[Argument] = []
        for i, arg in enumerate(node.args):
            star = "*" if isinstance(arg, ast.Starred) else ""
            value = arg.value if isinstance(arg, ast.Starred) else arg
            span = lines.span(path, arg)
            arguments.append(
                Argument(
                    None, i, span, lines.span(path, value), _elements(value, lines, path), star
                )
            )
        for kw in node.keywords:
            span = lines.span(path, kw)
            arguments.append(
                Argument(
                    kw.arg,
                    -1,
                    span,
                    lines.span(path, kw.value),
                    _elements(kw.value, lines, path),
                    "" if kw.arg is not None else "**",
                )
            )
        arguments.sort(key=lambda a: (a.span.line, a.span.column))
        callee = node.func.id if isinstance(node.func, ast.Name) else None
        calls.append(Call(callee, lines.span(path, node), callee_span, lparen, tuple(arguments)))
    calls.sort(key=lambda c: (c.span.line, c.span.column))
    return calls


def _elements(value: ast.expr, lines: Lines, path: str) -> tuple[SourceSpan, ...]:
    if isinstance(value, (ast.List, ast.Tuple)):
        return tuple(lines.span(path, e) for e in value.elts)
    return ()
