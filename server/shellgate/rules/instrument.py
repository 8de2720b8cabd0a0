"""Rewrite a rules file so that evaluating it reports where each call is and counts steps.

starlark-go (through its Python binding) neither tells a builtin where it was called from nor
limits evaluation steps. So before evaluation every call gets one more argument,
`**__sg_site(K)` (evaluated after all the others, right before the call: it names call K and
returns `{}`), and every loop iterates through `if __sg_tick()`. Both count steps, and the
counter stops runaway evaluation (Starlark has no `while` and no recursion, so loops and calls
are the only sources of work). Insertions never add lines; `ColumnMap` maps columns back.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from shellgate.rules.syntax import Lines

SITE = "__sg_site"
TICK = "__sg_tick"
_VAR = "__sg_v"


@dataclass
class ColumnMap:
    """Per line, the edits as (original 0-based column, original length, new length), sorted.
    An insertion has original length 0."""

    inserts: dict[int, list[tuple[int, int, int]]] = field(default_factory=dict)

    def original(self, line: int, col: int) -> int:
        """The original 1-based column of a 1-based column of the rewritten line."""
        out = col - 1
        for orig, old_len, new_len in self.inserts.get(line, ()):
            if out < orig:
                break
            if out < orig + new_len:
                return orig + 1  # inside edited text: its start
            out += old_len - new_len
        return out + 1


@dataclass
class Rewritten:
    text: str
    columns: ColumnMap
    # Site number -> lparen (line, 1-based column) of that call in the original text.
    sites: list[tuple[int, int]]


class _Scanner:
    def __init__(self, lines: Lines) -> None:
        self.lines = lines

    def pos(self, line: int, byte_col: int) -> tuple[int, int]:
        return line, self.lines.col(line, byte_col)

    def skip_forward(self, line: int, col: int) -> tuple[int, int]:
        """Past blanks, comments, line continuations and newlines."""
        lines = self.lines.lines
        while line <= len(lines):
            s = lines[line - 1]
            while col < len(s) and s[col] in " \t\r\\\f":
                col += 1
            if col < len(s) and s[col] != "#":
                return line, col
            line, col = line + 1, 0
        return line, col

    def own_parens_before(self, line: int, col: int, stop: tuple[int, int] | None) -> int:
        """How many `(` directly precede (line, col): the expression's own parentheses."""
        lines = self.lines.lines
        count = 0
        col -= 1
        while line >= 1:
            s = lines[line - 1]
            while col >= 0:
                if stop is not None and (line, col) <= stop:
                    return count
                c = s[col]
                if c == "(":
                    count += 1
                elif c not in " \t\r\\\f":
                    return count
                col -= 1
            line -= 1
            col = len(lines[line - 1]) - 1 if line >= 1 else -1
        return count

    def past_own_parens(self, line: int, col: int, count: int) -> tuple[int, int]:
        """After an expression ending at (line, col), past its `count` closing parentheses."""
        for _ in range(count):
            nl, nc = self.skip_forward(line, col)
            if self.lines.char_at(nl, nc) != ")":
                break
            line, col = nl, nc + 1
        return line, col


def rewrite(text: str, all_nodes: list[ast.AST], lines: Lines) -> Rewritten:
    scan = _Scanner(lines)
    inserts: list[tuple[int, int, str]] = []
    replaced: list[tuple[int, int, int, str]] = []
    sites: list[tuple[int, int]] = []
    specs = {
        id(v.format_spec)
        for v in all_nodes
        if isinstance(v, ast.FormattedValue) and v.format_spec is not None
    }
    for node in all_nodes:
        if isinstance(node, ast.JoinedStr):
            if id(node) in specs:
                continue  # a format spec, part of its f-string
            edit = _fstring(node, scan)
            if edit is not None:
                replaced.append(edit)
        elif isinstance(node, ast.Call):
            _instrument_call(node, scan, inserts, sites)
        elif isinstance(node, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
            for gen in node.generators:
                _, end = _expr_bounds(gen.iter, scan, None)
                inserts.append((end[0], end[1], f" if {TICK}()"))
        elif isinstance(node, ast.For):
            start, end = _expr_bounds(node.iter, scan, None)
            inserts.append((start[0], start[1], f"[{_VAR} for {_VAR} in ("))
            inserts.append((end[0], end[1], f") if {TICK}()]"))
    # Nothing inside an f-string is edited twice: drop edits within replaced spans.
    for line, col, length, _ in replaced:
        inserts = [i for i in inserts if not (i[0] == line and col < i[1] < col + length)]
    return _apply(text, lines, [(ln, c, 0, t) for ln, c, t in inserts] + replaced, sites)


def _fstring(node: ast.JoinedStr, scan: _Scanner) -> tuple[int, int, int, str] | None:
    """starlark-rust has f-strings, starlark-go does not: `f"a{x}"` -> `"a{}".format(x)`.
    Only single-line ones; a multi-line f-string stays a syntax error."""
    if node.end_lineno != node.lineno:
        return None
    line, start = scan.pos(node.lineno, node.col_offset)
    _, end = scan.pos(node.lineno, node.end_col_offset or 0)
    if scan.lines.char_at(line, start) != "f" or scan.lines.char_at(line, start + 1) not in "'\"":
        return None  # only a lower-case `f` prefix: `F"..."`, `rf"..."` are errors in Codex
    template: list[str] = []
    values: list[str] = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            template.append(part.value.replace("{", "{{").replace("}", "}}"))
        elif isinstance(part, ast.FormattedValue) and part.format_spec is None:
            conversion = {-1: "", 114: "!r", 115: "!s"}.get(part.conversion)
            if conversion is None:
                return None
            template.append("{" + conversion + "}")
            values.append(ast.unparse(part.value))
        else:
            return None
    if not values:  # no placeholders: the plain string, braces unescaped
        plain = "".join(str(p.value) for p in node.values if isinstance(p, ast.Constant))
        return line, start, end - start, _string_literal(plain)
    call = f"{_string_literal(''.join(template))}.format({', '.join(values)})"
    return line, start, end - start, f"({call})"


def _string_literal(value: str) -> str:
    out = ['"']
    for c in value:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _expr_bounds(
    node: ast.expr, scan: _Scanner, stop: tuple[int, int] | None
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Start and end (line, 0-based char column) of an expression with its own parentheses."""
    start_line, start_col = scan.pos(node.lineno, node.col_offset)
    end_line, end_col = scan.pos(node.end_lineno or node.lineno, node.end_col_offset or 0)
    parens = scan.own_parens_before(start_line, start_col, stop)
    if parens:
        end_line, end_col = scan.past_own_parens(end_line, end_col, parens)
        # Move the start before the parentheses too.
        line, col, seen = start_line, start_col - 1, 0
        s = scan.lines.lines
        while seen < parens and line >= 1:
            while col >= 0 and seen < parens:
                if s[line - 1][col] == "(":
                    seen += 1
                    start_line, start_col = line, col
                col -= 1
            line -= 1
            col = len(s[line - 1]) - 1 if line >= 1 else -1
    return (start_line, start_col), (end_line, end_col)


def _instrument_call(
    node: ast.Call,
    scan: _Scanner,
    inserts: list[tuple[int, int, str]],
    sites: list[tuple[int, int]],
) -> None:
    if any(kw.arg is None for kw in node.keywords):
        return  # already has **kwargs: a second one is not allowed; this call goes unmarked
    func_end = scan.pos(node.func.end_lineno or node.func.lineno, node.func.end_col_offset or 0)
    lp_line, lp_col = func_end
    lp_line, lp_col = _find_char(scan, lp_line, lp_col, "(")
    site = len(sites)
    sites.append((lp_line, lp_col + 1))
    marker = f"**{SITE}({site})"
    args: list[ast.expr] = [*node.args, *(kw.value for kw in node.keywords)]
    if not args:
        inserts.append((lp_line, lp_col + 1, marker))
        return
    last = max(args, key=lambda a: (a.lineno, a.col_offset))
    if isinstance(last, ast.Starred):
        last_expr: ast.expr = last
    else:
        last_expr = last
    _, end = _expr_bounds(last_expr, scan, (lp_line, lp_col))
    nl, nc = scan.skip_forward(*end)
    if scan.lines.char_at(nl, nc) == ",":
        inserts.append((nl, nc + 1, " " + marker))
    else:
        inserts.append((end[0], end[1], ", " + marker))


def _find_char(scan: _Scanner, line: int, col: int, ch: str) -> tuple[int, int]:
    while True:
        line, col = scan.skip_forward(line, col)
        c = scan.lines.char_at(line, col)
        if c == ch or not c:
            return line, col
        col += 1


def _apply(
    text: str,
    lines: Lines,
    edits: list[tuple[int, int, int, str]],
    sites: list[tuple[int, int]],
) -> Rewritten:
    """Apply (line, column, length replaced, new text) edits; lines never change."""
    by_line: dict[int, list[tuple[int, int, str]]] = {}
    for line, col, length, new in edits:
        by_line.setdefault(line, []).append((col, length, new))
    columns = ColumnMap()
    out = list(lines.lines)
    for line, items in by_line.items():
        if not 1 <= line <= len(out):
            continue
        items.sort(key=lambda t: (t[0], t[1]))  # an insertion before a replacement there
        s = out[line - 1]
        parts: list[str] = []
        prev = 0
        for col, length, new in items:
            parts.append(s[prev:col])
            parts.append(new)
            prev = col + length
        parts.append(s[prev:])
        out[line - 1] = "".join(parts)
        columns.inserts[line] = [(col, length, len(new)) for col, length, new in items]
    return Rewritten("\n".join(out), columns, sites)
