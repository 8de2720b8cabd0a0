"""--write: appended under Codex's lock, never twice, nothing on bad input; and the written
file loads in the real Codex binaries, its examples included."""

from __future__ import annotations

import fcntl
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

import realtools
from shellgate.cli.check import main as check_main
from shellgate.importers.errors import ImportInputError
from shellgate.importers.model import Tool
from shellgate.importers.run import HEADER
from shellgate.rules.errors import RulesError
from shellgate.rules.loader import load_policy

from .helpers import imported, write
from .test_claude_code import SETTINGS as CLAUDE
from .test_gemini import POLICY as GEMINI
from .test_vscode import SETTINGS as VSCODE


def _sources(tmp_path: Path) -> dict[Tool, Path]:
    return {
        Tool.CLAUDE_CODE: write(tmp_path / "claude" / "settings.json", CLAUDE),
        Tool.GEMINI: write(tmp_path / "gemini" / "shell.toml", GEMINI),
        Tool.VSCODE: write(tmp_path / "vscode" / "settings.json", VSCODE),
    }


def test_write_creates_then_appends_nothing_twice(tmp_path: Path) -> None:
    source = write(tmp_path / "settings.json", CLAUDE)
    target = tmp_path / "rules" / "imported.rules"
    first = imported(Tool.CLAUDE_CODE, source, target=target, write=True)
    text = target.read_text()
    assert text.splitlines()[0] == HEADER
    assert first.written == tuple(r.line for r in first.translation.rules)
    assert text == "\n".join([HEADER, *first.written]) + "\n"
    again = imported(Tool.CLAUDE_CODE, source, target=target, write=True)
    assert again.written == ()
    assert again.already_present == first.written
    assert target.read_text() == text
    policy = load_policy([target])
    assert len(policy.rules) == len(first.written)


def test_write_appends_to_an_existing_file_keeping_it(tmp_path: Path) -> None:
    target = write(tmp_path / "default.rules", 'prefix_rule(pattern=["ls"], decision="allow")')
    source = write(tmp_path / "s.json", '{"permissions": {"deny": ["Bash(curl:*)"]}}')
    result = imported(Tool.CLAUDE_CODE, source, target=target, write=True)
    lines = target.read_text().splitlines()
    assert lines[0] == 'prefix_rule(pattern=["ls"], decision="allow")'
    assert lines[1:] == list(result.written)  # no header in a file that had rules
    curl = next(r for r in result.rows if r.command == "curl")
    assert (curl.source.value, curl.shellgate.value) == ("deny", "deny")


def test_a_rule_codex_already_wrote_is_not_duplicated(tmp_path: Path) -> None:
    # Codex's "don't ask again" line: the same pattern and decision, other wording.
    codex_line = 'prefix_rule(pattern=["git", "log"], decision="allow")'
    target = write(tmp_path / "default.rules", codex_line + "\n")
    source = write(
        tmp_path / "s.json", '{"permissions": {"allow": ["Bash(git log:*)", "Bash(make:*)"]}}'
    )
    result = imported(Tool.CLAUDE_CODE, source, target=target, write=True)
    assert [line.split(", decision")[0] for line in result.already_present] == [
        'prefix_rule(pattern=["git", "log"]'
    ]
    assert target.read_text().count('"git", "log"') == 1
    assert len(result.written) == 1 and '"make"' in result.written[0]


def test_broken_target_or_source_writes_nothing(tmp_path: Path) -> None:
    source = write(tmp_path / "s.json", '{"permissions": {"allow": ["Bash(make:*)"]}}')
    broken = write(tmp_path / "broken.rules", "prefix_rule(pattern=[], decision=\n")
    before = broken.read_bytes()
    with pytest.raises(RulesError):
        imported(Tool.CLAUDE_CODE, source, target=broken, write=True)
    assert broken.read_bytes() == before
    bad = write(tmp_path / "bad.json", '{"permissions": {"allow": ["Bash(make:*)",]}}')
    target = tmp_path / "new.rules"
    with pytest.raises(ImportInputError):
        imported(Tool.CLAUDE_CODE, bad, target=target, write=True)
    assert not target.exists()


def test_write_waits_for_codex_lock(tmp_path: Path) -> None:
    source = write(tmp_path / "s.json", '{"permissions": {"allow": ["Bash(make:*)"]}}')
    target = write(tmp_path / "default.rules", "")
    with target.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # what Codex's File::lock takes
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "shellgate",
                "import",
                "claude-code",
                str(source),
                "--write",
                str(target),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(1.5)
        assert proc.poll() is None, "the import did not wait for the lock"
        assert target.read_bytes() == b""
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert "make" in target.read_text()


def _codex_check(codex: Path, rules: Path, command: list[str]) -> dict[str, object]:
    argv = [str(codex), "execpolicy", "check", "--rules", str(rules), "--", *command]
    run = subprocess.run(
        ["unshare", "-rn", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, object] = json.loads(run.stdout)
    return result


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_written_rules_load_in_real_codex(
    tmp_path: Path, version: str, capsys: pytest.CaptureFixture[str]
) -> None:
    codex = realtools.codex(version)
    for tool, source in _sources(tmp_path).items():
        target = tmp_path / f"{tool.value}.rules"
        result = imported(tool, source, target=target, write=True)
        assert result.written
        for rule in result.translation.rules:
            # Each rule's own example: Codex loads the file (examples checked at load) and
            # reports the rule among the matches, with the decision written.
            command = shlex.split(shlex.join(rule.pattern))
            out = _codex_check(codex, target, command)
            matches = [m["prefixRuleMatch"] for m in out["matchedRules"]]  # type: ignore[attr-defined]
            assert {
                "matchedPrefix": list(rule.pattern),
                "decision": rule.decision.value,
                "justification": next(
                    m["justification"] for m in matches if m["matchedPrefix"] == list(rule.pattern)
                ),
            } in matches, (tool, rule.line)
            assert any("imported from" in m["justification"] for m in matches)
            assert check_main(["--rules", str(target), "--", *command]) == 0
            assert json.loads(capsys.readouterr().out) == out, rule.line


def test_append_rule_lines_writes_nothing_when_the_check_refuses(tmp_path: Path) -> None:
    from shellgate.rules.amend import append_rule_lines

    target = write(tmp_path / "r.rules", "# mine\n")

    def refuse(existing: str, new: object) -> None:
        assert existing == "# mine\n"
        raise RulesError("would not load", path=str(target))

    with pytest.raises(RulesError):
        append_rule_lines(target, ['prefix_rule(pattern=["a"], decision="allow")'], check=refuse)
    assert target.read_text() == "# mine\n"
    lines = ['prefix_rule(pattern=["a"], decision="allow")'] * 2 + ["# mine"]
    assert append_rule_lines(target, lines) == (lines[0],)  # once, and not what is there
    assert target.read_text() == "# mine\n" + lines[0] + "\n"


def test_the_same_rule_from_two_entries_is_written_once(tmp_path: Path) -> None:
    source = write(
        tmp_path / "s.json",
        '{"permissions": {"allow": ["Bash(git log:*)", "Bash(git log *)"]}}',
    )
    result = imported(Tool.CLAUDE_CODE, source)
    assert len(result.translation.rules) == 1
    [(entry, rule)] = result.translation.duplicates
    assert entry.origin.text == "Bash(git log *)" and rule.entry.origin.text == "Bash(git log:*)"
