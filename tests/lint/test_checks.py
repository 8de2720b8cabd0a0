"""The lint library on real rules text (the real loader, the real Starlark interpreter)."""

from __future__ import annotations

import pytest

from shellgate.lint.analyze import analyze
from shellgate.lint.check_comments import find_check_comments
from shellgate.lint.completion import Kind, context_at, value_choices
from shellgate.lint.did_you_mean import suggest_decision
from shellgate.lint.finding import Finding, Severity
from shellgate.rules.decision import Decision


def findings(text: str) -> list[Finding]:
    return list(analyze(text, "t.rules").findings)


def codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in findings(text)]


def apply(text: str, finding: Finding, fix: int = 0) -> str:
    """Apply a fix's edits (last first) to the text."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for edit in sorted(finding.fixes[fix].edits, key=lambda e: (e.span.line, e.span.column))[::-1]:
        s = edit.span
        start = offsets[s.line - 1] + s.column - 1
        end = offsets[s.end_line - 1] + s.end_column - 1
        text = text[:start] + edit.new_text + text[end:]
    return text


@pytest.mark.parametrize(
    ("raw", "better"),
    [("deny", "forbidden"), ("Allow", "allow"), ("promt", "prompt"), ("ask", "prompt"),
     (" forbidden", "forbidden"), ("xyzzy", None)],
)  # fmt: skip
def test_did_you_mean(raw: str, better: str | None) -> None:
    assert suggest_decision(raw) == better


def test_invalid_decision_fix_makes_the_file_load() -> None:
    text = 'prefix_rule(pattern = ["git"], decision = "Prompt")\n'
    (bad,) = [f for f in findings(text) if f.code == "invalid-decision"]
    assert bad.message == 'invalid decision: Prompt (did you mean "prompt"?)'
    assert (bad.span.line, bad.span.column) == (1, 32)
    fixed = apply(text, bad)
    assert fixed == 'prefix_rule(pattern = ["git"], decision = "prompt")\n'
    assert analyze(fixed, "t.rules").error is None


def test_whole_file_refusal_is_reported_on_line_one() -> None:
    text = 'prefix_rule(pattern = ["a"])\nprefix_rule(pattern = [])\n'
    result = codes(text)
    assert ("file-refused", 1) in result
    (refused,) = [f for f in findings(text) if f.code == "file-refused"]
    assert refused.severity is Severity.ERROR
    assert refused.message.endswith("(because of the error on line 2)")
    assert refused.related[0][0].line == 2  # the error itself, said once, where it is
    assert "its 1 rule is ignored" in refused.message  # one rule, said as one
    (two,) = [f for f in findings('prefix_rule(pattern = ["a"])\n' + text)
              if f.code == "file-refused"]  # fmt: skip
    assert "its 2 rules are ignored" in two.message


def test_every_failing_example_has_its_own_error_and_fix() -> None:
    text = (
        "prefix_rule(\n"
        '    pattern = ["git", "push"],\n'
        '    match = ["git push", "git pull", "git fetch"],\n'
        ")\n"
    )
    failing = [f for f in findings(text) if f.code == "example-not-matched"]
    assert [(f.span.line, f.span.column) for f in failing] == [(3, 26), (3, 38)]
    fixed = apply(text, failing[1])
    assert '    match = ["git push", "git pull"],' in fixed
    fixed = apply(fixed, next(f for f in findings(fixed) if f.code == "example-not-matched"))
    assert analyze(fixed, "t.rules").error is None


def test_duplicate_shadowed_redundant() -> None:
    text = (
        'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
        'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
        'prefix_rule(pattern = ["git", "push", "--force"], decision = "allow")\n'
        'prefix_rule(pattern = ["git", "push", "origin"], decision = "prompt")\n'
        'prefix_rule(pattern = ["git", "status"], decision = "allow")\n'
    )
    found = sorted(c for c in codes(text) if c[0] != "equivalent-spelling")
    assert found == [("duplicate-rule", 2), ("redundant-rule", 4), ("shadowed-rule", 3)]
    (dup,) = [f for f in findings(text) if f.code == "duplicate-rule"]
    assert dup.related and dup.related[0][0].line == 1
    assert apply(text, dup).count('["git", "push"], decision = "prompt")') == 1


def test_shadowed_only_when_every_alternative_is_covered() -> None:
    text = (
        'prefix_rule(pattern = ["git", "push"], decision = "forbidden")\n'
        'prefix_rule(pattern = ["git", ["push", "pull"]], decision = "allow")\n'
    )
    assert "shadowed-rule" not in [c for c, _ in codes(text)]


@pytest.mark.parametrize(
    ("pattern", "code"),
    [('["bash", "-lc"]', "allow-runs-commands"), ('["sudo"]', "allow-runs-commands"),
     ('["python3", "-c"]', "allow-runs-commands"), ('["find", "."]', "allow-runs-commands"),
     ('["/usr/bin/env"]', "allow-runs-commands"), ('["rm"]', "allow-dangerous"),
     ('["python3", "manage.py", "test"]', None), ('["ls"]', None)],
)  # fmt: skip
def test_allow_on_command_runners(pattern: str, code: str | None) -> None:
    text = f'prefix_rule(pattern = {pattern}, decision = "allow")\n'
    found = [f for f in findings(text) if f.code.startswith("allow-")]
    assert [f.code for f in found] == ([code] if code else [])
    if code:
        assert apply(text, found[0]) == f'prefix_rule(pattern = {pattern}, decision = "prompt")\n'


def test_missing_justification_fix() -> None:
    text = (
        'prefix_rule(\n    pattern = ["git", "reset", "--hard"],\n    decision = "forbidden",\n)\n'
    )
    (f,) = [f for f in findings(text) if f.code == "missing-justification"]
    fixed = apply(text, f)
    assert analyze(fixed, "t.rules").error is None
    assert "missing-justification" not in [c for c, _ in codes(fixed)]


def test_equivalent_spellings() -> None:
    text = (
        'prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden", justification = "no")\n'
        'prefix_rule(pattern = ["git", "push", "--force"], decision = "forbidden",'
        ' justification = "no")\n'
        'prefix_rule(pattern = ["/usr/bin/curl"], decision = "prompt")\n'
    )
    messages = [f.message for f in findings(text) if f.code == "equivalent-spelling"]
    assert any(m.startswith("`rm -fr` (the same flags in another order)") for m in messages)
    assert any(m.startswith("`rm -r -f` (the flags written apart)") for m in messages)
    assert any(m.startswith("`git -C . push --force` (a git global option)") for m in messages)
    assert any(
        m.startswith("`git push x --force` (the flag after another argument)") for m in messages
    )
    assert any(m.startswith("`curl` (the bare program name)") for m in messages)
    reorder = next(f for f in findings(text) if f.message.startswith("`rm -fr`"))
    fixed = apply(text, reorder)
    assert '["rm", ["-rf", "-fr"]]' in fixed
    assert not [f for f in findings(fixed) if f.message.startswith("`rm -fr`")]


def test_spelling_hint_silent_when_a_rule_covers_it() -> None:
    text = (
        'prefix_rule(pattern = ["rm", ["-rf", "-fr"]], decision = "forbidden",'
        ' justification = "x")\n'
        'prefix_rule(pattern = ["rm"], decision = "prompt")\n'
    )
    assert not [f for f in findings(text) if f.message.startswith("`rm -fr`")]


def test_token_checks() -> None:
    text = (
        'prefix_rule(pattern = ["git status"], decision = "allow")\n'
        'prefix_rule(pattern = ["cat", "*.env"], decision = "forbidden", justification = "x")\n'
    )
    assert ("token-has-space", 1) in codes(text)
    assert ("literal-wildcard", 2) in codes(text)


def test_rules_generated_by_starlark_code_are_checked() -> None:
    text = (
        "def deny(tool):\n"
        '    prefix_rule(pattern = [tool], decision = "allow")\n'
        'for t in ["bash", "ls"]:\n'
        "    deny(t)\n"
    )
    assert [c for c in codes(text) if c[0] == "allow-runs-commands"] == [("allow-runs-commands", 2)]


def test_check_comments() -> None:
    text = "# check: git push --force => forbidden\n#check:ls\n# check:   \n# check: x => nope\n"
    found = find_check_comments(text, "t.rules")
    assert [(c.command, c.expected, c.span.line, c.span.column) for c in found] == [
        ("git push --force", Decision.FORBIDDEN, 1, 10),
        ("ls", None, 2, 8),
        ("x", None, 4, 10),
    ]
    assert found[2].bad_expectation == "nope"
    assert ("check-bad-expectation", 4) in codes(text)


@pytest.mark.parametrize(
    ("before", "kind", "param"),
    [('prefix_rule(pattern = ["a"], decision = "', Kind.VALUE, "decision"),
     ('network_rule(host = "h", protocol = "', Kind.VALUE, "protocol"),
     ("prefix_rule(\n    pattern = [\"a\"],\n    ", Kind.ARGUMENT, None),
     ("prefix_rule(pattern = [\"it's\"], # don't\n  ", Kind.ARGUMENT, None),
     ("", Kind.BUILTIN, None),
     ("# a comment pre", Kind.NONE, None)],
)  # fmt: skip
def test_completion_context(before: str, kind: Kind, param: str | None) -> None:
    ctx = context_at(before)
    assert ctx.kind is kind
    assert ctx.param == param
    if param == "protocol":
        assert value_choices("network_rule", "protocol")[:2] == ("http", "https")


@pytest.mark.parametrize(
    "text",
    ["prefix_rule(", "\x00\x01", "prefix_rule(pattern = [\"a\"]) " * 2000, "def f(:\n",
     "x = [" * 500 + "]" * 500, "prefix_rule(pattern = [1])", "\ufeffprefix_rule(pattern=['a'])",
     "prefix_rule(pattern=['a'],\tdecision='allow')\n\tx = 1"],
)  # fmt: skip
def test_never_raises(text: str) -> None:
    result = analyze(text, "t.rules")
    for f in result.findings:
        assert f.span.line >= 1 and f.span.column >= 1


@pytest.mark.parametrize(
    ("text", "fixed"),
    [('prefix_rul(pattern = ["a"])\n', 'prefix_rule(pattern = ["a"])\n'),
     ('prefix_rule(patern = ["a"])\n', 'prefix_rule(pattern = ["a"])\n'),
     ('prefix_rule(pattern = ["a"], justfication = "x")\n',
      'prefix_rule(pattern = ["a"], justification = "x")\n'),
     ('network_rule(host = "a.com", protocol = "htps", decision = "allow")\n',
      'network_rule(host = "a.com", protocol = "https", decision = "allow")\n')],
)  # fmt: skip
def test_did_you_mean_for_names(text: str, fixed: str) -> None:
    (error,) = [f for f in findings(text) if f.code != "file-refused"]
    assert "(did you mean `" in error.message
    assert apply(text, error) == fixed
    assert analyze(fixed, "t.rules").error is None


def test_allow_on_a_program_that_hands_commands_says_which_and_that_shellgate_judges_them() -> None:
    text = (
        'prefix_rule(pattern = ["git"], decision = "allow")\n'
        'prefix_rule(pattern = ["awk"])\n'
        'prefix_rule(pattern = ["git", "status"], decision = "allow")\n'
        'prefix_rule(pattern = ["ls"])\n'
    )
    found = [f for f in findings(text) if f.code == "allow-hands-commands"]
    assert [f.span.line for f in found] == [1, 2]
    assert "alias.*" in found[0].message and "system()" in found[1].message
    assert all("ShellGate as the gate" in f.message for f in found)
