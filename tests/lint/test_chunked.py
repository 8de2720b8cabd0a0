"""Chunked re-evaluation gives exactly what evaluating the whole file gives, edit after edit."""

from __future__ import annotations

import random

import pytest

from shellgate.lint.analyze import analyze
from shellgate.lint.chunked import ChunkedParser, statement_starts
from shellgate.lint.finding import Finding
from shellgate.lint.memo import CheckMemo
from shellgate.rules.loader import ParsedFile, parse_text


def rule(i: int, decision: str = "prompt") -> str:
    return (
        "prefix_rule(\n"
        f'    pattern = ["tool{i}", ["run", "go"]],\n'
        f'    decision = "{decision}",\n'
        f'    match = ["tool{i} run x"],\n'
        ")\n"
    )


def assert_same(a: ParsedFile, b: ParsedFile) -> None:
    assert str(a.error) == str(b.error)
    assert a.rules == b.rules
    if b.error is None or b.error.code != "syntax-error":
        assert a.calls == b.calls  # (with a syntax error, chunks still give the outline)
    assert a.network_rules == b.network_rules


EDITS = [
    lambda t, r: t.replace('"prompt"', '"allow"', 1),
    lambda t, r: t.replace('"prompt"', '"deny"', 1),  # an evaluation error
    lambda t, r: t.replace("run x", "walk x", 1),  # a failing example
    lambda t, r: t.replace("prefix_rule(\n", "# a comment\nprefix_rule(\n", 1),  # shifts lines
    lambda t, r: t.replace(rule(r.randrange(60)), "", 1),  # deletes a rule
    lambda t, r: t + rule(1000 + r.randrange(100), "forbidden"),
    lambda t, r: t.replace('["run", "go"]', '["run", "go"', 1),  # unclosed: runs on
    lambda t, r: t.replace('"prompt"', '"prompt', 1),  # a syntax error on its line
    lambda t, r: t.replace("run x", "run x\t", 1),
    lambda t, r: t.replace("prefix_rule(\n", 'prefix_rule(\n    """\n', 1),
    lambda t, r: t.replace("prefix_rule(\n", "x = 1\nprefix_rule(\n", 1),  # not only calls
    lambda t, r: t + 'network_rule(host = "example.com", protocol = "https", decision = "deny")\n',
]


@pytest.mark.parametrize("seed", range(10))
def test_random_edits_match_whole_file_evaluation(seed: int) -> None:
    r = random.Random(seed)
    text = "".join(rule(i, r.choice(["allow", "prompt", "forbidden"])) for i in range(60))
    parser = ChunkedParser()
    assert_same(parser.parse(text, "t.rules"), parse_text(text, "t.rules"))
    for _ in range(8):
        text = r.choice(EDITS)(text, r)
        assert_same(parser.parse(text, "t.rules"), parse_text(text, "t.rules"))


def test_only_plain_builtin_calls_are_chunked() -> None:
    assert statement_starts(rule(1) + rule(2)) == [0, len(rule(1))]
    assert statement_starts("x = 1\n" + rule(1)) is None
    assert statement_starts('host_executable(name = "git", paths = ["/usr/bin/git"])\n') is None
    assert statement_starts("def f():\n    pass\n") is None


@pytest.mark.parametrize("seed", range(4))
def test_remembered_checks_match_fresh_ones(seed: int) -> None:
    r = random.Random(seed)
    rules = [rule(i % 7, r.choice(["allow", "prompt", "forbidden"])) for i in range(40)]
    rules += ['prefix_rule(pattern = ["/usr/bin/tool1", "run"], decision = "forbidden")\n']
    text = "".join(rules)
    parser, memo = ChunkedParser(), CheckMemo()

    def key(f: Finding) -> tuple[object, ...]:
        return (f.span, f.code, f.message, f.fixes)

    for _ in range(8):
        remembered = analyze(text, "t.rules", parser, memo).findings
        fresh = analyze(text, "t.rules").findings
        assert sorted(map(key, remembered), key=repr) == sorted(map(key, fresh), key=repr)
        text = r.choice(EDITS[:6])(text, r)
