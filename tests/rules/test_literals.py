"""Literals read as Codex reads them (unknown escapes kept, high `\\x`/octal escapes as code
points, bare CRs dropped, f-string fields with quotes), errors still at the original columns,
and the cheap paths (plain `prefix_rule` calls, the nesting bound) meaning what the full ones do."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from shellgate.rules import dialect, literals
from shellgate.rules.errors import RulesError
from shellgate.rules.loader import load_policy, parse_text


def justification(text: str) -> str | None:
    parsed = parse_text(text, "p.rules")
    assert parsed.error is None, parsed.error
    return parsed.rules[0].justification


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (r'"J\qJ"', "J\\qJ"),
        (r'"J\N{BULLET}J"', "J\\N{BULLET}J"),
        (r'"\8\ "', "\\8\\ "),
        (r'"\xff"', "\u00ff"),
        (r'"\777\400"', "\u01ff\u0100"),
        (r'"\x41\101\n"', "AA\n"),
        (r'"\\q"', "\\q"),
        (r'r"\q"', "\\q"),
        ('"a\rb"', "ab"),
        ('"""a\rb"""', "ab"),
        ('f"{"ls"}-y"', "ls-y"),
        ("f\"{'\\u00e9'}-y\"", "\u00e9-y"),
        ('f"a{1}\rb"', "a1b"),
    ],
)
def test_literal_values_are_codex_values(literal: str, value: str) -> None:
    assert justification(f'prefix_rule(pattern=["git"], justification={literal})\n') == value


def test_an_error_after_a_rewritten_literal_keeps_its_original_column() -> None:
    text = 'x = "\\q\\q" + 1\n'
    parsed = parse_text(text, "p.rules")
    assert parsed.error is not None
    assert parsed.error.message.startswith("Operation `+` not supported")
    # starlark-go points at the operator: column 12 of the original line.
    assert (parsed.error.line, parsed.error.column) == (1, text.index("+") + 1)


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("# a\rb\nx = 1\n", True),
        ("x = 1\n  # a\rb\n", True),
        ("x = 1 # a\rb\n", False),
        ("x = [1,\r2]\n", False),
    ],
)
def test_bare_carriage_return_only_in_literals_and_own_line_comments(text: str, ok: bool) -> None:
    parsed = parse_text(text + 'prefix_rule(pattern=["git"])\n', "p.rules")
    if ok:
        assert parsed.error is None
    else:
        assert (
            parsed.error is not None and parsed.error.message == "Parse error: invalid input `\\r`"
        )


def test_files_without_such_literals_are_left_alone() -> None:
    text = 'prefix_rule(pattern=["a\\n", "b\\x41"], justification=f"{x}")\n# 50% \\\\ done\n'
    assert literals.normalize(text) == (text, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('f = "%(" + "a)s"\nx = f % {"a": 1}\n', "Unsupported format character: '('"),
        ('x = "%c" % 65\n', "Unsupported format character: 'c'"),
        ('def f(s):\n  return s % 1\nx = f("%i")\n', "Unsupported format character: 'i'"),
        ("L = [1]\nfor x in L:\n  if True:\n    L.append(2)\n", "mutates an iterable"),
        ('x = ",".join("ab".codepoints())\n', "join"),
        ('x = "ab".elem_ords()\n', "Object of type `string` has no attribute `elem_ords`"),
    ],
)
def test_starlark_rust_refusals(text: str, message: str) -> None:
    parsed = parse_text(text, "p.rules")
    assert parsed.error is not None
    assert message in parsed.error.message


def test_format_strings_codex_takes_still_format() -> None:
    text = 'f = "%s-%d %%c"\nfor i in [1]:\n  x = f % ("a", i)\nprefix_rule(pattern=[x])\n'
    parsed = parse_text(text, "p.rules")
    assert parsed.error is None
    assert parsed.rules[0].first == "a-1 %c"


def test_nesting_bound_agrees_with_the_exact_scan() -> None:
    rnd = random.Random(5)
    for _ in range(200):
        depth_goal = rnd.choice([3, 990, 1000, 1001, 1010])
        parts = []
        depth = 0
        for _ in range(rnd.randrange(1500, 3000)):
            if depth < depth_goal and rnd.random() < 0.55:
                parts.append(rnd.choice("([{"))
                depth += 1
            elif depth:
                parts.append(rnd.choice(")]}"))
                depth -= 1
            parts.append(rnd.choice(["", "x", " ", "\n"]))
        text = "".join(parts)
        exact = 0
        deepest = 0
        for c in text:
            exact += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(c, 0)
            deepest = max(deepest, exact)
        too_deep = deepest > dialect.MAX_NESTING
        try:
            dialect.check_text(text, "p")
            raised = False
        except RulesError as err:
            raised = err.code == "too-deep"
        assert raised == too_deep, deepest


def test_plain_calls_take_the_fast_path_with_the_same_result(tmp_path: Path) -> None:
    calls = [
        'prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt")',
        'prefix_rule(pattern=[["a", "b"], "c"])',
        'prefix_rule(decision="forbidden", pattern=["rm", "-rf"])',
    ]
    plain_file = tmp_path / "plain.rules"
    plain_file.write_text("\n".join(calls) + "\n")
    # `match=[]` takes the full path, and means nothing more.
    full_file = tmp_path / "full.rules"
    full_file.write_text("\n".join(c[:-1] + ", match=[])" for c in calls) + "\n")
    plain = [(r.first, r.rest, r.decision) for r in load_policy([plain_file]).rules]
    assert plain == [(r.first, r.rest, r.decision) for r in load_policy([full_file]).rules]
    assert len(plain) == 4


@pytest.mark.parametrize(
    ("text", "tab_at"),
    [
        ("x = 1\t\n", (1, 6)),
        ("x = [1,\n\t2]\n", (2, 1)),
        ("def f():\n\treturn 1\n", (2, 1)),
        ("x = 1 #\tc\n", None),
        ('x = "a\tb"\n', None),
        ('x = """a\n\tb"""\n', None),
        ("\t\nx = 1\n", None),
        ("# c\n\t# d\n", None),
    ],
)
def test_tabs_only_refused_in_code(text: str, tab_at: tuple[int, int] | None) -> None:
    parsed = parse_text(text, "p.rules")
    if tab_at is None:
        assert parsed.error is None
    else:
        assert parsed.error is not None
        assert parsed.error.message == "Parse error: tabs are not allowed"
        assert (parsed.error.line, parsed.error.column) == tab_at
