"""Loader errors: Codex's words, and the file, line and column of the call or argument at fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.rules.errors import RulesError
from shellgate.rules.loader import load_policy, parse_text


def error_of(text: str) -> RulesError:
    parsed = parse_text(text, "p.rules")
    assert parsed.error is not None, "expected an error"
    return parsed.error


def at(err: RulesError) -> tuple[int, int, int, int]:
    return (err.line, err.column, err.end_line, err.end_column)


def test_invalid_decision_points_at_the_decision_argument() -> None:
    err = error_of('x = 1\nprefix_rule(pattern=["git"], decision="deny")\n')
    assert err.message == "invalid decision: deny"
    assert err.code == "invalid-decision"
    assert err.kind == "parse"
    assert at(err) == (2, 30, 2, 45)
    assert str(err) == "p.rules:2:30: invalid decision: deny"


def test_positional_argument_is_located_by_position() -> None:
    err = error_of('prefix_rule(["git"], "nope")\n')
    assert err.message == "invalid decision: nope"
    assert at(err) == (1, 22, 1, 28)


def test_bad_pattern_element_points_at_the_element() -> None:
    err = error_of('prefix_rule(\n    pattern=["git", 1, "x"],\n)\n')
    assert "pattern element must be a string or list of strings (got int)" in err.message
    assert at(err) == (2, 21, 2, 22)


def test_bad_example_points_at_the_example() -> None:
    err = error_of('prefix_rule(pattern=["git"], match=["git status", ""])\n')
    assert err.message == "invalid example: example cannot be an empty string"
    assert at(err)[:2] == (1, 51)


def test_unmatched_example_is_reported_after_the_file_on_the_example() -> None:
    text = 'prefix_rule(pattern=["git", "status"], match=["git status", "git log"])\n'
    err = error_of(text)
    assert err.code == "example-not-matched"
    assert err.message.startswith("expected every example to match at least one rule.")
    assert err.message.endswith('unmatched examples: ["git log"]')
    # match=[...] element 0 is the first unmatched example reported: "git log" is element 1.
    assert (err.line, err.column) == (1, 61)


def test_not_match_error_wins_and_names_the_rule_match() -> None:
    err = error_of('prefix_rule(pattern=["git"], match=["hg"], not_match=["git x"])\n')
    assert err.code == "example-matched"
    assert err.message == (
        'expected example to not match rule `PrefixRuleMatch { matched_prefix: ["git"], '
        "decision: Allow, resolved_program: None, justification: None }`: git x"
    )


def test_unknown_keyword_and_missing_parameter() -> None:
    err = error_of('prefix_rule(pattern=["ls"], reviewer="me")\n')
    assert err.message == "Found `reviewer` extra named parameter(s) for call to prefix_rule"
    assert (err.line, err.column) == (1, 29)
    err = error_of("\n\nhost_executable(paths=[])\n")
    assert err.message == "Missing parameter `name` for call to `host_executable`"
    assert (err.line, err.column) == (3, 1)


def test_type_error_wording() -> None:
    err = error_of('prefix_rule(pattern=("a", "b"))\n')
    assert err.message == (
        "Type of parameter `pattern` doesn't match, expected `list`, actual "
        '`tuple (repr: ("a", "b"))`'
    )


def test_error_inside_a_function_lands_on_the_builtin_call() -> None:
    text = 'def deny(p):\n    prefix_rule(pattern=p, decision="no")\n\ndeny(["rm"])\n'
    err = error_of(text)
    assert err.message == "invalid decision: no"
    assert (err.line, err.column) == (2, 28)


def test_syntax_and_name_errors_have_positions() -> None:
    err = error_of('prefix_rule(pattern=["ls"]\nx = 1\n')
    assert err.code == "syntax-error" and err.line >= 1
    err = error_of("x = 1\nprefix_rule(pattern=[undefined])\n")
    assert err.message == "Variable `undefined` not found"
    assert (err.line, err.column) == (2, 22)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('\ufeffprefix_rule(pattern=["ls"])\n', "Parse error: invalid input `\ufeff`"),
        (
            'if True:\n\tprefix_rule(pattern=["ls"])\n',
            "Parse error: tabs are not allowed",
        ),
        ('print("hi")\n', "Variable `print` not found"),
        ("i = 0\nwhile i < 2:\n    i += 1\n", None),
        ("s = struct(a=1)\n", "Variable `struct` not found"),
        ('load("x.star", "y")\n', None),
        # Seen with the codex 0.169.0 binary: all refused there, all accepted by starlark-go.
        ("x = 1\rprefix_rule(pattern=['a'])\r", "Parse error: invalid input `\\r`"),
        ("def é():\n    pass\n", "Parse error: invalid identifier `é`"),
        ("x = [1 for é in [1]]\n", "Parse error: invalid identifier `é`"),
        ("n = 'a'\nx = F'{n}'\n", None),
        ("n = 'a'\nx = rf'{n}'\n", None),
        ("n = 'a'\nx = f'{n:>3}'\n", None),
    ],
)
def test_codex_dialect_differences_from_starlark_go(text: str, message: str | None) -> None:
    err = error_of(text)
    if message is not None:
        assert err.message == message
    assert err.line >= 1


def test_runaway_loops_hit_the_step_limit_quickly() -> None:
    err = error_of("x = [[i, j] for i in range(100000) for j in range(100000)]\n")
    assert err.code == "too-many-steps"
    assert err.line == 1


def test_exponential_calls_hit_the_step_limit() -> None:
    lines = ["def f0():\n    return 1\n"]
    for i in range(1, 40):
        lines.append(f"def f{i}():\n    return f{i - 1}() + f{i - 1}()\n")
    lines.append("x = f39()\n")
    err = error_of("".join(lines))
    assert err.code == "too-many-steps"


def test_load_policy_errors_are_located_too(tmp_path: Path) -> None:
    good = tmp_path / "good.rules"
    good.write_text('prefix_rule(pattern=["ls"])\n')
    bad = tmp_path / "bad.rules"
    bad.write_text('\nprefix_rule(pattern=["ls"], justification="  ")\n')
    with pytest.raises(RulesError) as info:
        load_policy([good, bad])
    err = info.value
    assert err.path == str(bad)
    assert err.message == "invalid rule: justification cannot be empty"
    assert (err.line, err.column) == (2, 29)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: None, "No such file or directory (os error 2)"),
        (lambda p: p.mkdir(), "Is a directory (os error 21)"),
        (
            lambda p: p.write_bytes(b'prefix_rule(pattern=["caf\xe9"])\n'),
            "stream did not contain valid UTF-8",
        ),
    ],
    ids=["missing", "directory", "not-utf8"],
)
def test_unreadable_files_are_read_errors(tmp_path: Path, setup: object, message: str) -> None:
    path = tmp_path / "x.rules"
    assert callable(setup)
    setup(path)
    with pytest.raises(RulesError) as info:
        load_policy([path])
    assert info.value.kind == "read"
    assert info.value.message == message


def test_too_deep_nesting_is_refused() -> None:
    err = error_of("x = " + "[" * 2000 + "]" * 2000 + "\n")
    assert err.code == "too-deep"
