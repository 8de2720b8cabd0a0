"""`shellgate import` as a user runs it: the real process, default places, text and JSON
(validated against rules-schema/import.schema.json), exit statuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema

from shellgate.rules.loader import load_policy

from .helpers import write
from .test_gemini import POLICY

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "rules-schema" / "import.schema.json").read_text())


def shellgate(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME", "CODEX_HOME")
    }
    env["HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "shellgate", "import", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_claude_code_from_the_usual_places(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    write(home / ".claude" / "settings.json", '{"permissions": {"allow": ["Bash(git log:*)"]}}')
    write(project / ".claude" / "settings.json", '{"permissions": {"deny": ["Bash(curl:*)"]}}')
    write(
        project / ".claude" / "settings.local.json",
        '{"permissions": {"ask": ["Bash(git push:*)"]}}',
    )
    run = shellgate("claude-code", cwd=project, home=home)
    assert run.returncode == 0, run.stderr
    rules = tmp_path / "out.rules"
    rules.write_text(run.stdout)
    assert [r.first for r in load_policy([rules]).rules] == ["git", "curl", "git"]
    assert run.stderr.startswith("Claude Code: 3 shell entries in ")
    assert "round trip (" in run.stderr


def test_json_matches_the_schema_and_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".gemini" / "policies" / "shell.toml", POLICY)
    target = tmp_path / "rules" / "default.rules"
    run = shellgate("gemini", "--format", "json", "--write", str(target), cwd=tmp_path, home=home)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    jsonschema.validate(report, SCHEMA)
    assert report["tool"] == "gemini" and report["combine"] == "priority"
    assert report["written"] and target.read_text().count("prefix_rule(") == len(report["written"])
    assert [r["command"] for r in report["order_changes"]][:1] == ["git push --dry-run"]
    assert report["round_trip"][0]["differs"] is True
    again = shellgate("gemini", "--format", "json", "--write", str(target), cwd=tmp_path, home=home)
    assert json.loads(again.stdout)["written"] == []


def test_write_prints_the_report(tmp_path: Path) -> None:
    source = write(
        tmp_path / ".vscode" / "settings.json",
        '{"chat.tools.terminal.autoApprove": {"npm test": true,}}',
    )
    target = tmp_path / "x.rules"
    run = shellgate("vscode", str(source), "--write", str(target), cwd=tmp_path, home=tmp_path)
    assert run.returncode == 0, run.stderr
    # Paths under HOME read as the user types them; the JSON keeps them whole.
    assert "rules (1, 1 appended to ~/x.rules)" in run.stdout
    assert "rule ~/x.rules:2 `npm test` allow / ~/.vscode/settings.json:1:38" in run.stdout
    run = shellgate("vscode", str(source), "--write", str(target), cwd=tmp_path, home=tmp_path)
    assert "rules (1, all already in ~/x.rules; nothing written)" in run.stdout
    run = shellgate("vscode", str(source), "--write", str(target), "--format", "json",
                    cwd=tmp_path, home=tmp_path)  # fmt: skip
    assert json.loads(run.stdout)["target"] == str(target)


def test_exit_statuses(tmp_path: Path) -> None:
    bad = write(tmp_path / "settings.json", '{\n  "permissions": {"allow": ["Bash(ls:*)",]}\n}\n')
    target = tmp_path / "t.rules"
    run = shellgate("claude-code", str(bad), "--write", str(target), cwd=tmp_path, home=tmp_path)
    assert run.returncode == 1
    assert run.stderr == (
        f"shellgate import: {bad}:2:42: invalid JSON: trailing comma before ]; nothing written\n"
    )
    assert not target.exists()
    none = shellgate("gemini", cwd=tmp_path, home=tmp_path / "empty")
    assert none.returncode == 1 and "no Gemini CLI settings found" in none.stderr
    usage = shellgate("cursor", cwd=tmp_path, home=tmp_path)
    assert usage.returncode == 2


def test_commands_file_joins_the_round_trip(tmp_path: Path) -> None:
    source = write(tmp_path / "s.json", '{"permissions": {"allow": ["Bash(git log:*)"]}}')
    history = write(tmp_path / "history.txt", "git log --oneline\ngit log | head\n\n")
    run = shellgate(
        "claude-code",
        str(source),
        "--commands",
        str(history),
        "--format",
        "json",
        cwd=tmp_path,
        home=tmp_path,
    )
    rows = {r["command"]: r for r in json.loads(run.stdout)["round_trip"]}
    assert rows["git log --oneline"]["from"] == "history"
    assert rows["git log --oneline"]["shellgate_decision"] == "allow"
    # A pipeline: Claude Code checks each part (head is not allowed: it asks); so does Codex.
    assert rows["git log | head"]["shellgate_decision"] == "ask"
    assert rows["git log | head"]["source_decision"] == "ask"


def test_round_trip_counts_the_rules_codex_already_loads(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(
        home / ".codex" / "rules" / "default.rules",
        'prefix_rule(pattern=["git"], decision="forbidden")\n',
    )
    source = write(tmp_path / "s.json", '{"permissions": {"allow": ["Bash(git log:*)"]}}')
    inside = home / ".codex" / "rules" / "imported.rules"
    run = shellgate(
        "claude-code",
        str(source),
        "--write",
        str(inside),
        "--format",
        "json",
        cwd=tmp_path,
        home=home,
    )
    report = json.loads(run.stdout)
    git_log = next(r for r in report["round_trip"] if r["command"] == "git log")
    assert (git_log["source_decision"], git_log["shellgate_decision"]) == ("allow", "deny")
    assert "default.rules:1" in git_log["shellgate_decided_by"]
    assert not any("is not a file Codex loads" in n for n in report["notes"])
    outside = tmp_path / "elsewhere.rules"
    run = shellgate(
        "claude-code",
        str(source),
        "--write",
        str(outside),
        "--format",
        "json",
        cwd=tmp_path,
        home=home,
    )
    assert any("is not a file Codex loads" in n for n in json.loads(run.stdout)["notes"])
