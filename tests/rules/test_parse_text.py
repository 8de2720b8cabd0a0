"""parse_text: what the language server gets (rules with spans, calls and arguments)."""

from __future__ import annotations

from shellgate.rules.decision import Decision
from shellgate.rules.loader import parse_text

TEXT = """# policy
host_executable(name="git", paths=["/usr/bin/git"])
prefix_rule(
    pattern=["git", ["push", "fetch"]],
    decision="prompt",
    justification="talks to the network",
)
for tool in ["cat", "héad"]:
    prefix_rule(pattern=[tool], match=[tool + " x"])
network_rule(host="Example.COM:443", protocol="https_connect", decision="deny")
"""


def test_rules_carry_the_span_of_the_call_that_made_them() -> None:
    parsed = parse_text(TEXT, "p.rules")
    assert parsed.error is None
    assert [r.first for r in parsed.rules] == ["git", "cat", "héad"]
    git = parsed.rules[0]
    assert git.rest == (("push", "fetch"),)
    assert git.decision is Decision.PROMPT
    assert git.span is not None
    assert (git.span.line, git.span.column, git.span.end_line, git.span.end_column) == (3, 1, 7, 2)
    for rule in parsed.rules[1:]:
        assert rule.span is not None and (rule.span.line, rule.span.column) == (9, 5)
    assert parsed.host_executables == {"git": ("/usr/bin/git",)}
    (net,) = parsed.network_rules
    assert (net.host, net.protocol, net.decision) == ("example.com", "https", Decision.FORBIDDEN)


def test_calls_and_arguments_have_spans() -> None:
    parsed = parse_text(TEXT, "p.rules")
    names = [c.callee for c in parsed.calls]
    assert names == ["host_executable", "prefix_rule", "prefix_rule", "network_rule"]
    call = parsed.calls[1]
    decision = call.argument("decision")
    assert decision is not None
    assert (decision.span.line, decision.span.column, decision.span.end_column) == (5, 5, 22)
    pattern = call.argument("pattern")
    assert pattern is not None and len(pattern.elements) == 2
    assert (pattern.elements[1].line, pattern.elements[1].column) == (4, 21)


def test_columns_count_characters_not_bytes() -> None:
    parsed = parse_text('x = "é"; prefix_rule(pattern=["a"], decision="é")\n', "p.rules")
    assert parsed.error is not None
    assert (parsed.error.line, parsed.error.column) == (1, 37)


def test_rules_before_an_error_are_kept_and_the_error_reported() -> None:
    parsed = parse_text('prefix_rule(pattern=["ls"])\nprefix_rule(pattern=[])\n', "p.rules")
    assert [r.first for r in parsed.rules] == ["ls"]
    assert parsed.error is not None and parsed.error.line == 2


def test_examples_see_host_executables_of_earlier_files() -> None:
    text = 'prefix_rule(pattern=["git"], match=["/usr/bin/git status"])\n'
    assert parse_text(text, "a.rules").error is None
    earlier = {"git": ("/opt/git",)}
    parsed = parse_text(text, "a.rules", host_executables=earlier)
    assert parsed.error is not None and parsed.error.code == "example-not-matched"


def test_trailing_commas_comments_and_parenthesised_arguments_survive_instrumentation() -> None:
    text = (
        "prefix_rule(\n"
        '    pattern=(["a"]),  # parenthesised\n'
        '    decision=("prompt"),\n'
        ")\n"
        'xs = [(x) for x in (["b", "c"]) if x]\n'
        "for x in (xs):\n"
        "    prefix_rule(pattern=[x],)\n"
        "f = lambda: prefix_rule(pattern=['d'])\n"
        "f()\n"
    )
    parsed = parse_text(text, "p.rules")
    assert parsed.error is None, parsed.error
    assert [r.first for r in parsed.rules] == ["a", "b", "c", "d"]


def test_f_strings_work_as_in_codex() -> None:
    text = (
        'name = "git"\n'
        "prefix_rule(pattern=[f\"{name}\", f'x{{y}}'], justification=f\"{name!r} is {name}\")\n"
        'for t in [f"a{name}"]:\n'
        "    prefix_rule(pattern=[t])\n"
    )
    parsed = parse_text(text, "p.rules")
    assert parsed.error is None, parsed.error
    first = parsed.rules[0]
    assert (first.first, first.rest) == ("git", (("x{y}",),))
    assert first.justification == '"git" is git'
    assert parsed.rules[1].first == "agit"
    assert first.span is not None and (first.span.line, first.span.column) == (2, 1)


def test_errors_after_an_f_string_keep_their_original_column() -> None:
    parsed = parse_text('x = 1\ny = f"{x}" + 1\n', "p.rules")
    assert parsed.error is not None
    assert (parsed.error.line, parsed.error.column) == (2, 12)
    assert parsed.error.message == "Operation `+` not supported for types `string` and `int`"
