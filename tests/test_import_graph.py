"""The import graph of `shellgate`, read with ast (imports at the top of a module, inside
functions and under `if TYPE_CHECKING:` alike): no cycle between packages, and no circle between
modules.

A package is a stage of the flow (rules, shell, approval, exec, broker, hooks, ...); a cycle
between two of them means neither can be read, tested or replaced without the other. Between
packages every import counts, typing-only ones too: they are dependencies all the same. Between
modules, an import under `if TYPE_CHECKING:` is left out (it never runs, so it cannot make an
import-order circle), as is a package's `__init__` importing its own modules.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "server"


def _modules() -> dict[str, Path]:
    out = {}
    for path in (ROOT / "shellgate").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _typing_only(tree: ast.Module) -> set[int]:
    """Line numbers of the imports under `if TYPE_CHECKING:`."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, ast.Import | ast.ImportFrom):
                        lines.add(sub.lineno)
    return lines


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if MODULES[module].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, *([base] if base else [])])
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                 for a in node.names]  # fmt: skip
    for name in names:
        while name and name not in MODULES:  # `import shellgate.x.y` names a module or above
            name = name.rpartition(".")[0]
        if name.startswith("shellgate") and name != module:
            yield name


def edges(*, typing: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = set() if typing else _typing_only(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and node.lineno not in skip:
                graph[module].update(_targets(module, node))
    return graph


def package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and MODULES[module].name ==
                                          "__init__.py") else "shellgate"  # fmt: skip


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    why: dict[tuple[str, str], str] = {}
    for a, targets in edges(typing=True).items():
        for b in targets:
            pa, pb = package(a), package(b)
            if pa != pb and "shellgate" not in (pa, pb):
                graph[pa].add(pb)
                why.setdefault((pa, pb), f"{a} imports {b}")
    cycles = _cycles(graph)
    detail = [why[(a, b)] for c in cycles for a in c for b in c if (a, b) in why]
    assert not cycles, (cycles, detail)


def test_no_circle_between_modules() -> None:
    graph = {a: {b for b in targets if not a.startswith(b + ".") and not b.startswith(a + ".")}
             for a, targets in edges(typing=False).items()}  # fmt: skip
    assert not _cycles(graph)


def test_the_graph_is_read() -> None:
    """The test would pass on an empty graph: check that it sees known edges."""
    graph = edges(typing=True)
    assert "shellgate.approval.question" in graph["shellgate.exec.orchestrator"]
    assert "shellgate.rules.amend" in graph["shellgate.approval.amendments"]
    assert package("shellgate.exec.orchestrator") == "exec"
    assert package("shellgate.records") == "shellgate"




def _unexplained(text: str) -> Iterator[int]:
    """Lines of the imports inside a function with no `#` comment on their line or the line
    before (the reason: docs/performance.md lists them). Adjacent imports share the comment
    above the first of them."""
    comments = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type == tokenize.COMMENT}  # fmt: skip
    nodes = {sub.lineno: sub for node in ast.walk(ast.parse(text))
             if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
             for sub in ast.walk(node) if isinstance(sub, ast.Import | ast.ImportFrom)}  # fmt: skip
    ends = {node.end_lineno: line for line, node in nodes.items()}
    for line in sorted(nodes):
        first = line
        while first - 1 in ends and first - 1 not in comments:  # in a block: back to its first
            first = ends[first - 1]
        if not {line, first - 1} & comments:
            yield line


def test_an_import_inside_a_function_says_why() -> None:
    """An import waits inside a function only for start-up time, and its comment says so."""
    unexplained = [f"{path.relative_to(ROOT)}:{line}"
                   for path in sorted(MODULES.values())
                   for line in _unexplained(path.read_text())]  # fmt: skip
    assert not unexplained, unexplained


def test_an_unexplained_import_is_found() -> None:
    """The check above would pass on a reader that saw nothing."""
    text = (
        "import json\n"
        "def f():\n"
        "    import os\n"  # 3: no reason
        "    # deferred: why\n"
        "    from a import (b,\n"
        "                   c)\n"
        "    import sys\n"  # 7: the block's reason
        "\n"
        "    import re\n"  # 9: a blank line ends the block
        "    import zlib  # deferred: why\n"
    )
    assert list(_unexplained(text)) == [3, 9]
