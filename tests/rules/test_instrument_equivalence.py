"""The instrumented evaluation (call sites, step counting, f-strings) must mean exactly what the
plain evaluation means: same rules, same errors, for generated programs of many shapes."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.rules import instrument, interpreter, syntax
from shellgate.rules.builtins import Collector
from shellgate.rules.errors import RulesError
from shellgate.rules.loader import parse_text

WORD = st.sampled_from(['"git"', '"ls"', "'a b'", '"x"', "name", '("p")'])
BUILTINS = {"prefix_rule", "host_executable", "network_rule"}
DECISION = st.sampled_from(['"allow"', '"prompt"', '"forbidden"', '"deny"'])
SEP = st.sampled_from([", ", ",", ",\n    ", " ,  # note\n  ", ", # c\n"])


@st.composite
def call(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORD, min_size=1, max_size=3))
    pattern = "[" + ", ".join(words) + draw(st.sampled_from(["", ",", " ,"])) + "]"
    if draw(st.booleans()):
        pattern = f"({pattern})"
    parts = [f"pattern={pattern}" if draw(st.booleans()) else pattern]
    if draw(st.booleans()):
        parts.append(f"decision={draw(DECISION)}")
    if draw(st.booleans()):
        parts.append('justification="why"')
    sep = draw(SEP)
    trailing = draw(st.sampled_from(["", ",", ",\n", "\n"]))
    return "prefix_rule(" + sep.join(parts) + trailing + ")"


@st.composite
def program(draw: st.DrawFn) -> str:
    lines = ['name = "tool"']
    for _ in range(draw(st.integers(1, 4))):
        c = draw(call())
        shape = draw(st.integers(0, 4))
        if shape == 0:
            lines.append(c)
        elif shape == 1:
            lines.append(f'for name in ["a", ("b")]:\n    {_indent(c)}')
        elif shape == 2:
            lines.append(f'def f(name):\n    {_indent(c)}\nf("z")')
        elif shape == 3:
            lines.append(f'xs = [{c} for name in (["q"]) if name]')
        else:
            lines.append(f'name = f"v{{name}}"\n{c}')
    return "\n".join(lines) + "\n"


def _indent(code: str) -> str:
    return code.replace("\n", "\n    ")


def plain(text: str) -> tuple[list[tuple[object, ...]], str | None]:
    """Evaluate with starlark-go as the text stands (no instrumentation)."""
    collector = Collector()
    run = interpreter.Run(collector, [])
    try:
        interpreter.run_starlark(text, "p.rules", collector, run)
    except interpreter.StarlarkFailure as failure:
        return _rules(collector), type(run.raised).__name__ if run.raised else failure.kind
    return _rules(collector), None


def _rules(collector: Collector) -> list[tuple[object, ...]]:
    return [(r.first, r.rest, r.decision, r.justification) for r in collector.rules]


@settings(max_examples=60, deadline=None)
@given(program())
def test_instrumented_evaluation_means_the_same(text: str) -> None:
    parsed = parse_text(text, "p.rules")
    rules = [(r.first, r.rest, r.decision, r.justification) for r in parsed.rules]
    if 'f"' in text:
        # starlark-go cannot read f-strings: compare with the hand-expanded program instead.
        expanded = text.replace('f"v{name}"', '"v" + str(name)')
        expected, error = plain(expanded)
    else:
        expected, error = plain(text)
    assert rules == expected
    if error is None:
        assert parsed.error is None, parsed.error
    else:
        assert isinstance(parsed.error, RulesError)
        assert parsed.error.code != "syntax-error"  # instrumentation never breaks the syntax
        assert parsed.error.line >= 1


@st.composite
def flat_program(draw: st.DrawFn) -> str:
    """Top-level calls only, as large generated policies are: evaluated without the rewrite
    (`instrument.in_source_order`), each call's site counted as it is made. With a statement
    that calls something else (`len`) or rebinds a builtin, the rewrite is used after all."""
    lines = ['name = "tool"']
    for _ in range(draw(st.integers(1, 6))):
        shape = draw(st.integers(0, 9))
        if shape == 0:
            lines.append('host_executable(name="git", paths=["/usr/bin/git"])')
        elif shape == 1:
            lines.append(draw(st.sampled_from(['len(["a"])', "x = len([])", "n = name + 1"])))
        elif shape == 2:
            lines.append('prefix_rule(pattern=["ls"], match=["ls -l"], not_match=["git"])')
        else:
            lines.append(draw(call()))
    return "\n".join(lines) + "\n"


def _parsed(text: str) -> tuple[object, ...]:
    parsed = parse_text(text, "p.rules")
    err = parsed.error
    return (
        [(r.first, r.rest, r.decision, r.justification, r.span) for r in parsed.rules],
        parsed.calls,
        parsed.host_executables,
        None if err is None else (err.message, err.code, err.line, err.column, err.end_column),
    )


@settings(max_examples=80, deadline=None)
@given(flat_program())
def test_calls_in_source_order_mean_what_the_rewrite_means(text: str) -> None:
    # A `def` at the end sends the same calls down the rewrite (`needs_instrumenting`).
    rewritten = _parsed(text + "def _unused():\n    pass\n")
    assert _parsed(text) == rewritten


def test_a_file_of_calls_is_evaluated_without_the_rewrite() -> None:
    flat = 'x = ["a"]\nprefix_rule(pattern=x + ["b"])\nhost_executable(name="ls", paths=[])\n'
    tree = ast.parse(flat)
    assert instrument.in_source_order(tree, syntax.nodes(tree), BUILTINS)
    for other in ('len([])\nprefix_rule(pattern=["a"])\n', 'prefix_rule = len\nprefix_rule("x")\n',
                  'prefix_rule(pattern=[str(1)])\n', 'y = prefix_rule(pattern=["a"])\n',
                  'prefix_rule(pattern=["a"], decision={"k": 1}["k"])\n'):  # fmt: skip
        tree = ast.parse(other)
        assert not instrument.in_source_order(tree, syntax.nodes(tree), BUILTINS), other
