"""Gemini CLI: policy TOML rules and the older settings lists, translated or refused, with
priority order compared against Codex's strictest-wins."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shellgate.importers.errors import ImportInputError
from shellgate.importers.gemini_match import prefix_matcher, subject
from shellgate.importers.model import Kind, Tool

from .helpers import decisions, imported, refused_of, row, rules_of, write

# As in Gemini's docs and its users' files: a list prefix, a deny with a higher-priority allow
# exception, a regex alternation, the documented wrong example with a trailing space (#22607),
# a `$` anchor that can never match, modes, argsPattern, a non-shell tool.
POLICY = """\
# ~/.gemini/policies/shell.toml
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git diff", "npm test"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 100
denyMessage = "pushes go through review"

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push --dry-run"
decision = "allow"
priority = 200

[[rule]]
toolName = "run_shell_command"
commandRegex = "git (log|show)\\\\b.*"
decision = "allow"
priority = 50

[[rule]]
toolName = "run_shell_command"
commandRegex = "make (build|test)"
decision = "allow"
priority = 50

[[rule]]
toolName = "run_shell_command"
commandRegex = "rm -[rf]+ .*"
decision = "deny"
priority = 900

[[rule]]
toolName = "run_shell_command"
commandRegex = "git status$"
decision = "allow"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git "
decision = "ask_user"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "awk"
decision = "allow"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "docker"
decision = "allow"
priority = 10
modes = ["yolo"]

[[rule]]
toolName = "run_shell_command"
argsPattern = '"command":"(git|npm)'
decision = "allow"
priority = 10

[[rule]]
toolName = "read_file"
decision = "allow"
priority = 10
"""

SETTINGS = """\
{
  // Gemini strips comments before parsing
  "tools": {
    "allowed": ["run_shell_command(ls)", "ShellTool(cat)", "read_file", "run_shell_command"],
    "exclude": ["run_shell_command(sudo)"],
    "confirmationRequired": ["run_shell_command(kubectl apply)"]
  },
  "privacy": {"usageStatisticsEnabled": false}
}
"""


@pytest.fixture
def result(tmp_path: Path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HOME", str(tmp_path))
    policy = write(tmp_path / ".gemini" / "policies" / "shell.toml", POLICY)
    settings = write(tmp_path / ".gemini" / "settings.json", SETTINGS)
    return imported(Tool.GEMINI, settings, policy)


def test_translations(result) -> None:  # type: ignore[no-untyped-def]
    assert rules_of(result) == {
        ("ls",): "allow",
        ("cat",): "allow",
        ("sudo",): "forbidden",
        ("kubectl", "apply"): "prompt",
        ("git", "status"): "allow",
        ("git", "diff"): "allow",
        ("npm", "test"): "allow",
        ("git", "push"): "forbidden",
        ("git", "log"): "allow",
        ("git", "show"): "allow",
        ("make", "build"): "allow",
        ("make", "test"): "allow",
        ("awk",): "prompt",  # risky
    }
    make = next(r for r in result.translation.rules if r.pattern == ("make", "build"))
    assert "longer last word" in make.entry.notes[0]


def test_positions(result, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    by_text = {r.entry.origin.text: r.entry.origin for r in result.translation.rules}
    assert (by_text["git diff"].line, by_text["git diff"].column) == (4, 32)
    assert (by_text["git push"].line, by_text["git push"].column) == (10, 17)
    assert by_text["git push"].key == "rule[2].commandPrefix"
    assert (by_text["run_shell_command(ls)"].line, by_text["run_shell_command(ls)"].column) == (
        4,
        17,
    )


def test_refusals(result) -> None:  # type: ignore[no-untyped-def]
    refused = refused_of(result)
    # A priority order strictest-wins cannot express: the allow that overrides a deny.
    assert "override the deny at" in refused["git push --dry-run"]
    assert "not a plain alternation" in refused["rm -[rf]+ .*"]
    assert "never matches" in refused["git status$"]
    assert "#22607" in refused["git "]
    docker = next(v for k, v in refused.items() if '"docker"' in k)
    assert "only in the yolo mode" in docker
    assert "argsPattern" in next(v for k, v in refused.items() if "argsPattern" in k)
    assert "whole shell tool" in refused["run_shell_command"]
    assert [i.origin.text for i in result.source.ignored] == [
        "read_file",
        'toolName = "read_file", decision = "allow", priority = 10',
    ]


def test_priority_order_against_strictest_wins(result) -> None:  # type: ignore[no-untyped-def]
    # The allow at priority 200 beats the deny at 100 in Gemini; Codex's forbidden wins.
    dry = row(result, "git push --dry-run")
    assert (dry.source, dry.shellgate) == (Kind.ALLOW, Kind.DENY)
    assert dry.order_change
    assert [e.origin.text for e in dry.source_by] == ["git push --dry-run", "git push"]
    # Settings lists sit at user tier + a fraction: `tools.exclude` (4.4) over everything.
    assert decisions(result, "sudo") == (Kind.DENY, Kind.DENY)
    # No boundary at the end of the regex: Gemini also allows `make buildx`, Codex asks.
    assert decisions(result, "make buildx") == (Kind.ALLOW, Kind.ASK)
    assert decisions(result, "git log") == (Kind.ALLOW, Kind.ALLOW)
    assert decisions(result, "awk") == (Kind.ALLOW, Kind.ASK)


def test_matcher_is_geminis_build_args_patterns() -> None:
    # buildArgsPatterns: the JSON-encoded prefix, then a blank, the end, or an escaped quote.
    pattern = prefix_matcher("git log")
    assert re.search(pattern, subject("git log"))
    assert re.search(pattern, subject("git log --oneline"))
    assert not re.search(pattern, subject("git logx"))
    assert not re.search(pattern, subject("sudo git log"))
    assert re.search(prefix_matcher('echo "a'), subject('echo "a b"'))


def test_tools_core_blocks_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.json", '{"tools": {"core": ["run_shell_command(git)"]}}')
    result = imported(Tool.GEMINI, path)
    assert result.source.default is Kind.DENY
    assert decisions(result, "git") == (Kind.ALLOW, Kind.ALLOW)
    assert any("cannot say" in n for n in result.source.notes)


R = '[[rule]]\ntoolName = "run_shell_command"\n'


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        (R + 'commandPrefix = "ls\n', 3, 20, "invalid TOML"),
        (
            R + 'commandPrefx = "ls"\ndecision = "allow"\npriority = 1\n',
            3,
            1,
            "did you mean `commandPrefix`",
        ),
        (
            R + 'commandPrefix = "ls"\ndecision = "yes"\npriority = 1\n',
            4,
            1,
            "`decision` must be",
        ),
        (
            R + 'commandPrefix = "ls"\ndecision = "allow"\npriority = 1000\n',
            5,
            1,
            "from 0 to 999",
        ),
        (
            R + 'commandPrefix = "ls"\ndecision = "allow"\n',
            1,
            1,
            "`priority`",
        ),
        ("[rules]\nx = 1\n", 1, 1, "unknown top-level key `rules`"),
    ],
)
def test_bad_policy_names_file_line_column(
    tmp_path: Path, text: str, line: int, column: int, words: str
) -> None:
    path = write(tmp_path / "p.toml", text)
    with pytest.raises(ImportInputError) as err:
        imported(Tool.GEMINI, path)
    assert (err.value.path, err.value.line, err.value.column) == (str(path), line, column), (
        err.value
    )
    assert words in err.value.message


def test_bad_settings_json(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.json", '{\n  "tools": {"allowed": "ls"}\n}\n')
    with pytest.raises(ImportInputError) as err:
        imported(Tool.GEMINI, path)
    assert (err.value.line, err.value.column, "must be an array" in err.value.message) == (
        2,
        24,
        True,
    )


def test_tool_lists_and_wildcards(tmp_path: Path) -> None:
    text = (
        '[[rule]]\ntoolName = ["run_shell_command", "write_file"]\n'
        'decision = "allow"\npriority = 1\n'
        '[[rule]]\ntoolName = ["write_file", "replace"]\ndecision = "ask_user"\npriority = 1\n'
        '[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 1\n'
    )
    result = imported(Tool.GEMINI, write(tmp_path / "p.toml", text))
    assert result.translation.rules == ()
    reasons = [r.reason for r in result.translation.refused]
    assert "every command" in reasons[0] and "every tool" in reasons[1]
    assert [i.reason for i in result.source.ignored] == [
        "a rule for a list of other tools, not the shell tool"
    ]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("interactive = false\n", "only to headless runs"),
        ('subagent = "codebase_investigator"\n', "one subagent"),
        ("toolAnnotations = { readOnlyHint = true }\n", "tool annotations"),
    ],
)
def test_conditions_codex_rules_cannot_see(tmp_path: Path, extra: str, words: str) -> None:
    text = R + 'commandPrefix = "ls"\ndecision = "allow"\npriority = 1\n' + extra
    result = imported(Tool.GEMINI, write(tmp_path / "p.toml", text))
    assert result.translation.rules == ()
    assert words in result.translation.refused[0].reason


def test_modes_and_bad_regex(tmp_path: Path) -> None:
    text = (
        R + 'commandPrefix = "ls"\ndecision = "allow"\npriority = 1\nmodes = ["default", "yolo"]\n'
        "[[rule]]\n" + R.split("\n", 1)[1] + 'commandRegex = "git (log"\ndecision = "deny"\n'
        "priority = 1\n"
    )
    result = imported(Tool.GEMINI, write(tmp_path / "p.toml", text))
    assert rules_of(result) == {("ls",): "allow"}
    assert "only in the default, yolo modes" in result.translation.rules[0].entry.notes[0]
    assert result.translation.refused[0].reason.startswith("bad regex")
