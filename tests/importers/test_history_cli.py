"""`shellgate import … --history [SOURCE …]` as a user runs it (the real process): the default
places under a temporary HOME holding the files the real tools wrote (tests/replay/fixtures),
named sources, sources that cannot be read, the JSON `history` section, the text summary line,
and rows marked entry or history."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema

from .helpers import write
from .test_cli import SCHEMA

FIXTURES = Path(__file__).parent.parent / "replay" / "fixtures"
ROLLOUT = next((FIXTURES / "codex" / "sessions").rglob("rollout-*.jsonl"))
SETTINGS = '{"permissions": {"allow": ["Bash(git status:*)"], "deny": ["Bash(rm:*)"]}}\n'
# The distinct records of the six fixtures (bash, zsh, fish, Codex, Claude Code, Gemini CLI).
FIXTURE_RECORDS = {
    "git status --short", "ls", "exit", "setopt EXTENDED_HISTORY INC_APPEND_HISTORY",
    "HISTFILE=/tmp/rp/zsh/hist; SAVEHIST=100; HISTSIZE=100", 'echo "two\nlines"',
    "ls -la | head -3", "echo héllo", "rm -rf build", "echo ăȃ", "cat a.txt",
    "echo back\\\\slash", "touch sandboxed.txt && ls", "git init -q && touch escalated.txt",
    "echo hi > out.txt && cat out.txt", "ls -la", "git log --oneline -3",
}  # fmt: skip
_HISTORY_VARS = ("HISTFILE", "ZDOTDIR", "XDG_DATA_HOME", "XDG_STATE_HOME", "CODEX_HOME",
                 "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME")  # fmt: skip


def shellgate(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _HISTORY_VARS}
    env["HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "shellgate", "import", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def _home_with_histories(home: Path) -> None:
    """Each tool's history where it keeps it by default."""
    shutil.copy(FIXTURES / "bash" / ".bash_history", write(home / ".bash_history", ""))
    shutil.copy(FIXTURES / "zsh" / ".zsh_history", home / ".zsh_history")
    shutil.copy(FIXTURES / "fish" / "fish_history",
                write(home / ".local" / "share" / "fish" / "fish_history", ""))  # fmt: skip
    shutil.copytree(FIXTURES / "codex" / "sessions", home / ".codex" / "sessions")
    shutil.copytree(FIXTURES / "claude" / "projects", home / ".claude" / "projects")
    shutil.copytree(FIXTURES / "gemini" / "tmp", home / ".gemini" / "tmp")


def _history_rows(report: dict) -> dict[tuple[str, str | None], dict]:
    return {(r["command"], r["sandbox_permissions"]): r for r in report["round_trip"]
            if r["from"] == "history"}  # fmt: skip


def test_default_places_under_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _home_with_histories(home)
    settings = write(tmp_path / "settings.json", SETTINGS)
    run = shellgate("claude-code", str(settings), "--history", "--format", "json",
                    home=home, cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    jsonschema.validate(report, SCHEMA)
    # 3 bash + 9 zsh + 5 fish + 4 Codex + 3 Claude Code + 2 Gemini (a message written twice).
    assert report["history"] == {"files": 6, "entries": 26, "distinct": 17,
                                 "skipped": {"count": 0, "first": []}}  # fmt: skip
    rows = _history_rows(report)
    assert {command for command, _ in rows} == FIXTURE_RECORDS
    # The Codex rollout's escalated call is a record of its own; its cwd was Codex's.
    escalated = rows[("git init -q && touch escalated.txt", "require_escalated")]
    assert escalated["recorded"] == "git init -q && touch escalated.txt"
    assert escalated["where"].startswith(str(home / ".codex" / "sessions"))
    assert rows[("git status --short", None)]["source_decision"] == "allow"
    assert rows[("rm -rf build", None)]["source_decision"] == "deny"
    assert rows[("rm -rf build", None)]["shellgate_decision"] == "deny"

    # --codex-home moves Codex's default sessions folder (an empty one here): five files left.
    other = tmp_path / "other-codex"
    (other / "sessions").mkdir(parents=True)
    run = shellgate("claude-code", str(settings), "--history", "--codex-home", str(other),
                    "--format", "json", home=home, cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert (report["history"]["files"], report["history"]["entries"]) == (5, 22)
    assert ("git init -q && touch escalated.txt", "require_escalated") not in _history_rows(report)


def test_named_sources_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".bash_history", "echo only-in-the-default-place\n")
    settings = write(tmp_path / "settings.json", SETTINGS)
    plain = write(tmp_path / "typed.txt", "git status -s\nrm -r dist\n")  # format by name only
    run = shellgate("claude-code", str(settings), "--format", "json", "--history",
                    f"bash:{plain}", str(FIXTURES / "zsh" / ".zsh_history"),
                    str(FIXTURES / "codex"), home=home, cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["history"]["files"] == 3
    rows = _history_rows(report)
    commands = {command for command, _ in rows}
    assert {"git status -s", "rm -r dist", "echo héllo", "touch sandboxed.txt && ls"} <= commands
    assert "echo only-in-the-default-place" not in commands
    assert rows[("git status -s", None)]["where"] == f"{plain}:1"
    assert (rows[("rm -r dist", None)]["source_decision"],
            rows[("rm -r dist", None)]["shellgate_decision"]) == ("deny", "deny")  # fmt: skip


def test_a_source_that_cannot_be_read_is_an_error_and_nothing_is_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings = write(tmp_path / "settings.json", SETTINGS)
    target = tmp_path / "codex" / "rules" / "imported.rules"
    unknown = write(tmp_path / "notes.jsonl", '{"note": "not a history"}\n')
    cases = {
        (str(tmp_path / "gone_history"),): f"{tmp_path / 'gone_history'}: no such file or folder",
        (str(unknown),): f"{unknown}: unknown history format: name it, e.g. bash:{unknown}",
        # A file that opens but cannot be read, even by root: its commands would be lost.
        (str(FIXTURES / "zsh" / ".zsh_history"), "bash:/proc/self/mem"):
            "/proc/self/mem: read error: Input/output error",
        (): "no history found in the default places: name a SOURCE",  # an empty HOME
    }  # fmt: skip
    for sources, message in cases.items():
        run = shellgate("claude-code", str(settings), "--write", str(target), "--history",
                        *sources, home=home, cwd=tmp_path)  # fmt: skip
        assert run.returncode == 1, (sources, run.stderr)
        assert run.stderr == f"shellgate import: --history: {message}; nothing written\n"
        assert run.stdout == ""
        assert not target.exists()


def test_text_report_summary_line_and_row_origins(tmp_path: Path) -> None:
    settings = write(tmp_path / "settings.json", SETTINGS)
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines()
    # A rollout whose writer was cut off mid-line (the last line) and a line that is no object.
    broken = write(tmp_path / "sessions" / ROLLOUT.name,
                   "\n".join([*lines[:-1], "[1]", lines[-1][:40]]) + "\n")  # fmt: skip
    run = shellgate("claude-code", str(settings), "--history", str(tmp_path / "sessions"),
                    home=tmp_path, cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = run.stderr  # the rules go to standard output, the report to standard error
    n = len(lines)
    assert report.endswith(
        f"history: 4 commands (4 distinct) read from 1 file; 2 entries skipped ({broken}:{n}: "
        "a JSON line that "
        f"is not an object; {broken}:{n + 1}: not a JSON line (truncated?))\n"
    )
    table = report[report.index("round trip (") :].splitlines()[1:-1]  # less the summary
    assert table[0].split()[:3] == ["from", "command", "Claude"]
    # Each row: the difference mark, then its origin; an escalated record says so.
    assert {line[5:].split()[0] for line in table[1:]} == {"entry", "history"}
    escalated = "     history  git init -q && touch escalated.txt [require_escalated]  ask  "
    assert any(line.startswith(escalated) for line in table)
    assert any(line.startswith("     entry    git status  ") for line in table)

    json_run = shellgate("claude-code", str(settings), "--history", str(tmp_path / "sessions"),
                         "--format", "json", home=tmp_path, cwd=tmp_path)  # fmt: skip
    data = json.loads(json_run.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["history"] == {"files": 1, "entries": 4, "distinct": 4, "skipped": {"count": 2,
        "first": [f"{broken}:{n}: a JSON line that is not an object",
                  f"{broken}:{n + 1}: not a JSON line (truncated?)"]}}  # fmt: skip
    assert {r["from"] for r in data["round_trip"]} == {"entry", "history"}
