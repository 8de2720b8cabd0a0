"""Claude Code settings.json: every form of `Bash(...)` entry, its translation or refusal, and
the round trip against Claude Code's documented matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.importers.claude_code import strip_wrappers
from shellgate.importers.errors import ImportInputError
from shellgate.importers.model import Kind, Tool

from .helpers import decisions, imported, refused_of, row, rules_of, write

# As users write them, including the wild forms from Claude Code's issue tracker: a heredoc
# saved by "always allow" (#25441), `:*` in the middle (#84969), `rm -rf *` in allow (#86634).
SETTINGS = """\
{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(git log:*)",
      "Bash(git diff *)",
      "Bash(npm run test:*)",
      "Bash(git status)",
      "Bash(sed:*)",
      "Bash(find . -name:*)",
      "Bash(python3 -m pytest:*)",
      "Bash(rm -rf *)",
      "Bash(git * main)",
      "Bash(ls*)",
      "Bash(cat <<'EOF'\\nhello\\nEOF)",
      "Bash(cd src && make:*)",
      "Bash",
      "Read(./src/**)",
      "WebFetch(domain:github.com)",
      "mcp__github__list_issues",
      "Bash(git push --dry-run:*)"
    ],
    "ask": ["Bash(git push:*)", "Bash(docker run)"],
    "deny": ["Bash(curl:*)", "Bash(rm:* -rf)", "Bash(git push --force *)"],
    "defaultMode": "default",
    "additionalDirectories": ["../docs"]
  },
  "env": {"FOO": "1"}
}
"""


@pytest.fixture
def result(tmp_path: Path):  # type: ignore[no-untyped-def]
    return imported(Tool.CLAUDE_CODE, write(tmp_path / "settings.json", SETTINGS))


def test_translations(result) -> None:  # type: ignore[no-untyped-def]
    assert rules_of(result) == {
        ("git", "log"): "allow",
        ("git", "diff"): "allow",
        ("npm", "run", "test"): "allow",
        ("sed",): "prompt",  # risky
        ("find", ".", "-name"): "prompt",  # find -exec
        ("python3", "-m", "pytest"): "allow",  # an interpreter with a program: not risky
        ("rm", "-rf"): "prompt",  # destructive
        ("git", "push", "--dry-run"): "allow",
        ("git", "push"): "prompt",
        ("docker", "run"): "prompt",  # exact ask: written as a prefix (stricter), noted
        ("curl",): "forbidden",
        ("git", "push", "--force"): "forbidden",
    }
    docker = next(r for r in result.translation.rules if r.pattern == ("docker", "run"))
    assert "stricter" in docker.entry.notes[0]


def test_rule_lines_name_the_source_and_carry_examples(result, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    line = next(r.line for r in result.translation.rules if r.pattern == ("git", "log"))
    where = f"{tmp_path / 'settings.json'}:5:7"
    assert line == (
        'prefix_rule(pattern=["git", "log"], decision="allow", justification="imported from '
        f'Claude Code {where} (permissions.allow: Bash(git log:*))", match=["git log"], '
        'not_match=["git"])'
    )
    sed = next(r for r in result.translation.rules if r.pattern == ("sed",))
    assert sed.risky and "prompt instead of allow" in sed.line


def test_refusals_say_why(result) -> None:  # type: ignore[no-untyped-def]
    refused = refused_of(result)
    assert set(refused) == {
        "Bash(git status)",
        "Bash(git * main)",
        "Bash(ls*)",
        "Bash(cat <<'EOF'\nhello\nEOF)",
        "Bash(cd src && make:*)",
        "Bash",
        "Bash(rm:* -rf)",
    }
    assert "allows exactly `git status`" in refused["Bash(git status)"]
    assert "in the middle" in refused["Bash(git * main)"]
    assert "glued to a word" in refused["Bash(ls*)"]
    assert "several lines" in refused["Bash(cat <<'EOF'\nhello\nEOF)"]
    assert "shell syntax (`&`)" in refused["Bash(cd src && make:*)"]
    assert "every command" in refused["Bash"]
    assert "Claude Code ignores this rule" in refused["Bash(rm:* -rf)"]


def test_other_tools_are_ignored_not_refused(result) -> None:  # type: ignore[no-untyped-def]
    assert [i.origin.text for i in result.source.ignored] == [
        "Read(./src/**)",
        "WebFetch(domain:github.com)",
        "mcp__github__list_issues",
    ]


def test_round_trip(result) -> None:  # type: ignore[no-untyped-def]
    # Same in both: prefix with a word boundary, deny over ask over allow.
    assert decisions(result, "git log") == (Kind.ALLOW, Kind.ALLOW)
    assert decisions(result, "git push") == (Kind.ASK, Kind.ASK)
    assert decisions(result, "git push --force") == (Kind.DENY, Kind.DENY)
    # The exact allow Codex cannot express: Claude Code allows, ShellGate asks.
    assert decisions(result, "git status") == (Kind.ALLOW, Kind.ASK)
    assert decisions(result, "git status --help") == (Kind.ASK, Kind.ASK)
    # Risky allows downgraded.
    assert decisions(result, "sed") == (Kind.ALLOW, Kind.ASK)
    # Claude Code strips `timeout`; Codex judges `timeout` (and asks).
    assert decisions(result, "timeout 30 curl") == (Kind.DENY, Kind.ASK)
    # Differences come first.
    flags = [r.differs for r in result.rows]
    assert flags == sorted(flags, reverse=True) and any(flags) and not all(flags)
    # A deny's intended exception is dead in both tools: shown as shadowed, not as a change.
    dry = row(result, "git push --dry-run")
    assert (dry.source, dry.shellgate) == (Kind.ASK, Kind.ASK)
    assert [e.origin.text for e in dry.shadowed] == ["Bash(git push --dry-run:*)"]
    assert not any(r.order_change for r in result.rows)  # Claude Code is strictest-wins too


def test_keep_risky(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.json", '{"permissions": {"allow": ["Bash(sed:*)", "Bash(xargs:*)"]}}'
    )
    kept = imported(Tool.CLAUDE_CODE, path, keep_risky=True)
    assert rules_of(kept) == {("sed",): "allow", ("xargs",): "allow"}
    assert all(r.kept_risky for r in kept.translation.rules)
    assert "kept as allow with --keep-risky" in kept.translation.rules[0].line


def test_strip_wrappers_as_documented() -> None:
    assert strip_wrappers("timeout 30 git push") == "git push"
    assert strip_wrappers("timeout -s KILL 5 nice -n 10 FOO=1 git log") == "git log"
    assert strip_wrappers("nohup time command ls") == "ls"
    assert strip_wrappers("xargs rm") == "rm"
    assert strip_wrappers("xargs -0 rm") == "xargs -0 rm"  # only a bare xargs


def test_project_allow_entries_noted_as_needing_trust(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home" / ".claude"))
    path = write(
        tmp_path / "proj" / ".claude" / "settings.json",
        '{"permissions": {"allow": ["Bash(make:*)"]}}',
    )
    result = imported(Tool.CLAUDE_CODE, path)
    assert any("until the workspace is trusted" in n for n in result.source.notes)


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ('{\n  "permissions": {\n    "allow": ["Bash(ls:*)",]\n  }\n}\n', 3, 28, "trailing comma"),
        ('{\n  // mine\n  "permissions": {}\n}\n', 2, 3, "comments are not allowed"),
        ('{\n  "permissions": {\n    "allow": ["Bash(ls:*)"\n  }\n}\n', 4, 3, "expected ','"),
        ('{"permissions": {"alow": ["Bash(ls:*)"]}}', 1, 18, "unknown key `permissions.alow`"),
        ('{"permissions": {"allow": "Bash(ls:*)"}}', 1, 27, "must be an array"),
        ('{"permissions": {"deny": [1]}}', 1, 27, "non-string"),
        ('["Bash(ls:*)"]', 1, 1, "must hold a JSON object"),
    ],
)
def test_bad_input_names_file_line_column(
    tmp_path: Path, text: str, line: int, column: int, words: str
) -> None:
    path = write(tmp_path / "settings.json", text)
    with pytest.raises(ImportInputError) as err:
        imported(Tool.CLAUDE_CODE, path)
    assert (err.value.path, err.value.line, err.value.column) == (str(path), line, column)
    assert words in err.value.message
    assert str(err.value).startswith(f"{path}:{line}:{column}: ")


def test_non_utf8_and_huge_files(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'{\n  "permissions": {"allow": ["Bash(caf\xe9:*)"]}\n}\n')
    with pytest.raises(ImportInputError) as err:
        imported(Tool.CLAUDE_CODE, path)
    assert (err.value.line, err.value.column) == (2, 38)
    assert "not UTF-8" in err.value.message
    big = tmp_path / "big.json"
    big.write_bytes(b'{"x": "' + b"a" * (5 * 1024 * 1024) + b'"}')
    with pytest.raises(ImportInputError, match="larger than 4 MiB"):
        imported(Tool.CLAUDE_CODE, big)


def test_malformed_entries(tmp_path: Path) -> None:
    text = '{"permissions": {"deny": ["Bash(git push", "Bash()", "Bash(:*)"]}}'
    result = imported(Tool.CLAUDE_CODE, write(tmp_path / "s.json", text))
    reasons = [r.reason for r in result.translation.refused]
    assert "not a Claude Code permission rule" in reasons[0]
    assert all("every command" in r for r in reasons[1:])


@pytest.mark.parametrize("bare", ["Bash", "Bash(*)", "Bash(:*)"])
@pytest.mark.parametrize("kind", [Kind.DENY, Kind.ASK])
def test_a_bare_bash_in_deny_or_ask_governs_every_command(
    tmp_path: Path, kind: Kind, bare: str
) -> None:
    """Claude Code: deny over ask over allow, across its settings files; a bare `Bash` in
    deny or ask matches every command, so the allow entries never apply (issue 18)."""
    user = write(tmp_path / "user" / "settings.json",
                 f'{{"permissions": {{"{kind.value}": ["{bare}"]}}}}')  # fmt: skip
    project = write(tmp_path / "p" / ".claude" / "settings.json", """\
{"permissions": {"allow": ["Bash(git log:*)", "Bash(npm test)"],
                 "deny": ["Bash(curl:*)"]}}""")  # fmt: skip
    result = imported(Tool.CLAUDE_CODE, user, project)
    rules = rules_of(result)
    assert "allow" not in rules.values(), rules  # no allow rule written
    assert rules == {("curl",): "forbidden"}  # as strict as the bare entry, or stricter: kept
    refused = refused_of(result)
    for text in ("Bash(git log:*)", "Bash(npm test)"):
        assert "never applies" in refused[text] and f"permissions.{kind.value}" in refused[text]
    # the round trip: Claude Code does not allow them; its deciding entry is the bare one
    for command in ("git log", "npm test", "npm test --help"):
        r = row(result, command)
        assert r.source is kind, (command, r.source)
        assert r.source_by[0].origin.text == bare
    assert row(result, "curl").source is Kind.DENY


def test_exact_entry_with_double_quotes_matches_itself_in_the_round_trip(tmp_path: Path) -> None:
    settings = write(tmp_path / "settings.json", r"""{"permissions": {
  "ask": ["Bash(echo \"hello world\")"],
  "allow": ["Bash(printf \"%s\\n\" done)"]}}""")  # fmt: skip
    result = imported(Tool.CLAUDE_CODE, settings)
    assert rules_of(result) == {("echo", "hello world"): "prompt"}
    asked = row(result, 'echo "hello world"')  # its own spelling, not re-quoted
    assert asked.source is Kind.ASK and asked.source_by[0].origin.text.startswith("Bash(echo")
    assert asked.shellgate is Kind.ASK and not asked.differs
    allowed = row(result, 'printf "%s\\n" done')
    assert allowed.source is Kind.ALLOW and allowed.source_by
    assert not [r for r in result.rows if r.command == "echo 'hello world'"]
