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
ENTER = "__sg_enter"
LEAVE = "__sg_leave"
FORMAT = "__sg_fmt"
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


# Where several edits share a position, the order that keeps them nested: closing text of
# inner constructs first, then a replacement, then opening text of outer constructs first.
Order = tuple[int, int, int]
Edit = tuple[int, int, int, str, Order]  # line, column, length replaced, new text, order


def _end(node_start: tuple[int, int]) -> Order:
    return (0, -node_start[0], -node_start[1])


def _start(node_end: tuple[int, int]) -> Order:
    return (2, -node_end[0], -node_end[1])


_REPLACE: Order = (1, 0, 0)
# starlark-rust's `codepoints()` gives integers (starlark-go's `codepoint_ords()`); the
# starlark-go names are unknown attributes in Codex.
_RENAMED_METHODS = {
    "codepoints": "codepoint_ords",
    "codepoint_ords": "__sg_codepoint_ords",
    "elem_ords": "__sg_elem_ords",
}
_FIRST: Order = (-1, 0, 0)  # before anything else at its position
_LAST: Order = (3, 0, 0)  # after anything else at its position
_SIMPLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.Pass, ast.Break, ast.Continue)

# Calls of these names (when the file does not rebind them) cannot reach user code, so they
# need no call-depth tracking: Starlark's universe (but not sorted/min/max, whose `key` is a
# callback), our builtins. Method calls are natives too.
_NATIVE_NAMES = frozenset(
    [
        "None",
        "True",
        "False",
        "abs",
        "all",
        "any",
        "bool",
        "bytes",
        "chr",
        "dict",
        "dir",
        "enumerate",
        "fail",
        "float",
        "getattr",
        "hasattr",
        "hash",
        "int",
        "len",
        "list",
        "ord",
        "range",
        "repr",
        "reversed",
        "str",
        "tuple",
        "type",
        "zip",
        "prefix_rule",
        "host_executable",
        "network_rule",
    ]
)


def rewrite(text: str, all_nodes: list[ast.AST], lines: Lines) -> Rewritten:
    scan = _Scanner(lines)
    edits: list[Edit] = []
    replaced: list[Edit] = []
    sites: list[tuple[int, int]] = []
    specs = {
        id(v.format_spec)
        for v in all_nodes
        if isinstance(v, ast.FormattedValue) and v.format_spec is not None
    }
    bound = _bound_names(all_nodes)
    for node in all_nodes:
        if isinstance(node, ast.JoinedStr):
            if id(node) in specs:
                continue  # a format spec, part of its f-string
            replaced.extend(_fstring(node, scan))
        elif isinstance(node, ast.Call):
            _instrument_call(node, scan, edits, sites, bound)
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str))
        ):
            # A format string built at run time: checked as Codex would when it is used.
            start, end = _expr_bounds(node.left, scan, None)
            edits.append((*start, 0, f"{FORMAT}(", _FIRST))
            edits.append((*end, 0, ")", _LAST))
        elif isinstance(node, ast.Attribute) and node.attr in _RENAMED_METHODS:
            at_line, at_end = scan.pos(node.end_lineno or node.lineno, node.end_col_offset or 0)
            new = _RENAMED_METHODS[node.attr]
            replaced.append((at_line, at_end - len(node.attr), len(node.attr), new, _REPLACE))
        elif isinstance(node, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
            outer = scan.pos(node.lineno, node.col_offset)
            for gen in node.generators:
                _, end = _expr_bounds(gen.iter, scan, None)
                edits.append((end[0], end[1], 0, f" if {TICK}()", _end(outer)))
        elif isinstance(node, ast.For) and isinstance(node.body[0], _SIMPLE_STATEMENTS):
            # Tick in the body, so the loop iterates its own sequence: mutating it while
            # iterating stays an error, as in Codex.
            first = scan.pos(node.body[0].lineno, node.body[0].col_offset)
            edits.append((*first, 0, f"{TICK}(); ", _FIRST))
        elif isinstance(node, ast.For) and isinstance(node.body[0], (ast.If, ast.For)):
            # The body opens with `if`/`for`: tick in its header, `(tick() and (header))`.
            inner = node.body[0]
            header = inner.test if isinstance(inner, ast.If) else inner.iter
            start, end = _expr_bounds(header, scan, None)
            edits.append((*start, 0, f"({TICK}() and (", _FIRST))
            edits.append((*end, 0, "))", _LAST))
        elif isinstance(node, ast.For):
            start, end = _expr_bounds(node.iter, scan, None)
            stmt_start = scan.pos(node.lineno, node.col_offset)
            stmt_end = scan.pos(node.end_lineno or node.lineno, node.end_col_offset or 0)
            edits.append((start[0], start[1], 0, f"[{_VAR} for {_VAR} in (", _start(stmt_end)))
            edits.append((end[0], end[1], 0, f") if {TICK}()]", _end(stmt_start)))
    # Nothing inside an f-string is edited twice: drop edits within replaced spans.
    for line, col, length, _, _ in replaced:
        edits = [e for e in edits if not (e[0] == line and col < e[1] < col + length)]
    return _apply(text, lines, edits + replaced, sites)


# What a file of plain calls is made of: literals, names, assignments and `+` (what a rewrite
# would leave alone but for its call sites).
_FLAT = frozenset({ast.Module, ast.Expr, ast.Call, ast.Name, ast.Load, ast.Store,
                   ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.keyword, ast.Assign,
                   ast.BinOp, ast.Add})  # fmt: skip


def in_source_order(tree: ast.Module, all_nodes: list[ast.AST], builtins: set[str]) -> bool:
    """Whether evaluating the file calls a builtin once per top-level statement that is a call,
    in source order, and calls nothing else: then the K-th builtin call made is the K-th call
    of the file, and `rewrite` would only mark sites (a large generated policy is such a file;
    marking its every call cost a quarter of the editor's evaluation)."""
    calls = 0
    for node in all_nodes:
        kind = type(node)
        if kind not in _FLAT:
            return False
        if kind is ast.Call:
            calls += 1
        elif isinstance(node, ast.Name) and node.id in builtins and isinstance(node.ctx, ast.Store):
            return False  # a builtin's name bound to something else
    statements = 0
    for statement in tree.body:
        if isinstance(statement, ast.Expr):
            call = statement.value
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                return False
            if call.func.id not in builtins:
                return False
            statements += 1
    return calls == statements


def _bound_names(all_nodes: list[ast.AST]) -> set[str]:
    """Names the file assigns, defines or takes as parameters."""
    names: set[str] = set()
    for n in all_nodes:
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names.add(n.id)
        elif isinstance(n, ast.FunctionDef):
            names.add(n.name)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
    return names


def _fstring(node: ast.JoinedStr, scan: _Scanner) -> list[Edit]:
    """starlark-rust has f-strings, starlark-go does not: `f"a{x}"` -> `"a{}".format(x)`."""
    if node.end_lineno != node.lineno:
        return _multiline_fstring(node, scan)
    edit = _single_line_fstring(node, scan)
    return [edit] if edit is not None else []


def _multiline_fstring(node: ast.JoinedStr, scan: _Scanner) -> list[Edit]:
    """A triple-quoted f-string over several lines, rewritten from its source text so that its
    line breaks stay where they are: each `{field}` becomes `{}` (or `{!r}`/`{!s}`) and the
    expressions move to a `.format(...)` call; `{{`, `}}` and escapes mean the same there."""
    values = [v for v in node.values if isinstance(v, ast.FormattedValue)]
    if any(v.format_spec is not None for v in values):
        return []
    first, start = scan.pos(node.lineno, node.col_offset)
    last, end = scan.pos(node.end_lineno or node.lineno, node.end_col_offset or 0)
    text = scan.lines.lines
    if last > len(text):
        return []
    src = "\n".join([text[first - 1][start:], *text[first : last - 1], text[last - 1][:end]])
    quote = src[1:4]
    if src[0] != "f" or quote not in ('"""', "'''") or not src.endswith(quote) or len(src) < 7:
        return []
    body = src[4:-3]
    out: list[str] = []
    fields = 0
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" or body.startswith(("{{", "}}"), i):
            out.append(body[i : i + 2])
            i += 2
            continue
        if c != "{":
            out.append(c)
            i += 1
            continue
        j, depth, inner_quote = i + 1, 0, ""
        while j < len(body):
            ch = body[j]
            if inner_quote:
                inner_quote = "" if ch == inner_quote else inner_quote
            elif ch in "'\"":
                inner_quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                if depth == 0 and ch == "}":
                    break
                depth -= 1
            j += 1
        if j >= len(body) or "\n" in body[i:j] or fields >= len(values):
            return []
        conversion = {-1: "", 114: "!r", 115: "!s"}.get(values[fields].conversion)
        if conversion is None:
            return []
        out.append("{" + conversion + "}")
        fields += 1
        i = j + 1
    if fields != len(values):
        return []
    args = ", ".join(ast.unparse(v.value) for v in values)
    new = f"({quote}{''.join(out)}{quote}.format({args}))".split("\n")
    old = src.split("\n")
    if len(new) != len(old):
        return []
    edits: list[Edit] = []
    for k, (old_part, new_part) in enumerate(zip(old, new, strict=True)):
        col = start if k == 0 else 0
        edits.append((first + k, col, len(old_part), new_part, _REPLACE))
    return edits


def _single_line_fstring(node: ast.JoinedStr, scan: _Scanner) -> Edit | None:
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
        return line, start, end - start, _string_literal(plain), _REPLACE
    call = f"{_string_literal(''.join(template))}.format({', '.join(values)})"
    return line, start, end - start, f"({call})", _REPLACE


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
    edits: list[Edit],
    sites: list[tuple[int, int]],
    bound: set[str],
) -> None:
    """Mark the call's site (last argument); if it may run user code, count its depth: the
    marker enters (after the arguments are evaluated) and `(call, __sg_leave())[0]` leaves."""
    call_start = scan.pos(node.lineno, node.col_offset)
    call_end = scan.pos(node.end_lineno or node.lineno, node.end_col_offset or 0)
    func = node.func
    tracked = not isinstance(func, ast.Attribute) and not (
        isinstance(func, ast.Name) and func.id in _NATIVE_NAMES and func.id not in bound
    )
    if any(kw.arg is None for kw in node.keywords):
        # A second **kwargs is not allowed: no site marker; enter before the arguments.
        if tracked:
            edits.append((*call_start, 0, f"({ENTER}(), ", _start(call_end)))
            edits.append((*call_end, 0, f", {LEAVE}())[1]", _end(call_start)))
        return
    if tracked:
        edits.append((*call_start, 0, "(", _start(call_end)))
        edits.append((*call_end, 0, f", {LEAVE}())[0]", _end(call_start)))
    func_end = scan.pos(func.end_lineno or func.lineno, func.end_col_offset or 0)
    lp_line, lp_col = _find_char(scan, func_end[0], func_end[1], "(")
    site = len(sites)
    sites.append((lp_line, lp_col + 1))
    marker = f"**{SITE}({site}, True)" if tracked else f"**{SITE}({site})"
    order = _end(call_start)  # after the closing text of calls inside the arguments
    args: list[ast.expr] = [*node.args, *(kw.value for kw in node.keywords)]
    if not args:
        edits.append((lp_line, lp_col + 1, 0, marker, order))
        return
    last = max(args, key=lambda a: (a.lineno, a.col_offset))
    _, end = _expr_bounds(last, scan, (lp_line, lp_col))
    nl, nc = scan.skip_forward(*end)
    if scan.lines.char_at(nl, nc) == ",":
        edits.append((nl, nc + 1, 0, " " + marker, order))
    else:
        edits.append((end[0], end[1], 0, ", " + marker, order))


def _find_char(scan: _Scanner, line: int, col: int, ch: str) -> tuple[int, int]:
    while True:
        line, col = scan.skip_forward(line, col)
        c = scan.lines.char_at(line, col)
        if c == ch or not c:
            return line, col
        col += 1


def _apply(text: str, lines: Lines, edits: list[Edit], sites: list[tuple[int, int]]) -> Rewritten:
    """Apply the edits; lines never change."""
    by_line: dict[int, list[tuple[int, Order, int, str]]] = {}
    for line, col, length, new, order in edits:
        by_line.setdefault(line, []).append((col, order, length, new))
    columns = ColumnMap()
    out = list(lines.lines)
    for line, items in by_line.items():
        if not 1 <= line <= len(out):
            continue
        items.sort(key=lambda t: (t[0], t[1]))
        s = out[line - 1]
        parts: list[str] = []
        prev = 0
        for col, _, length, new in items:
            parts.append(s[prev:col])
            parts.append(new)
            prev = col + length
        parts.append(s[prev:])
        out[line - 1] = "".join(parts)
        columns.inserts[line] = [(col, length, len(new)) for col, _, length, new in items]
    return Rewritten("\n".join(out), columns, sites)
