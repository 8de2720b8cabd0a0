"""`shellgate lint` as CI runs it: the real process, text / JSON / SARIF, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GOOD = (
    'prefix_rule(pattern = ["git", "status"], decision = "allow")\n# check: git status => allow\n'
)
WARN = 'prefix_rule(pattern = ["xargs"], decision = "allow")\n'
BAD = 'prefix_rule(pattern = ["git"], decision = "deny")\n'


def lint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shellgate", "lint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_clean_file_exits_zero(tmp_path: Path) -> None:
    (tmp_path / "good.rules").write_text(GOOD)
    run = lint("good.rules", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""


def test_text_mode_always_ends_with_a_summary(tmp_path: Path) -> None:
    # A file with no finding (one of 100 000 rules was 12 s of silence): the count says lint ran.
    (tmp_path / "good.rules").write_text(GOOD)
    (tmp_path / "warn.rules").write_text(WARN)
    run = lint("good.rules", cwd=tmp_path)
    assert (run.returncode, run.stderr) == (0, "1 file(s), 0 error(s), 0 other\n")
    run = lint("good.rules", "warn.rules", cwd=tmp_path)
    assert run.stderr == "2 file(s), 0 error(s), 1 other\n"
    for fmt in ("json", "sarif"):  # their documents are the whole output: no line after them
        assert lint("--format", fmt, "good.rules", cwd=tmp_path).stderr == ""


def test_warnings_alone_exit_zero(tmp_path: Path) -> None:
    (tmp_path / "warn.rules").write_text(WARN)
    run = lint("warn.rules", cwd=tmp_path)
    assert run.returncode == 0
    assert run.stdout.startswith("warn.rules:1:45: warning[allow-runs-commands] `allow` on `xargs`")


def test_errors_exit_one_with_file_line_column(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "bad.rules").write_text(BAD)
    (rules / "good.rules").write_text(GOOD)
    run = lint(str(rules), cwd=tmp_path)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert f"{rules}/bad.rules:1:32: error[invalid-decision] invalid decision: deny" in lines[1]
    assert lines[0].startswith(f"{rules}/bad.rules:1:1: error[file-refused]")
    assert "Traceback" not in run.stderr


def test_check_comment_mismatch_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "c.rules").write_text(
        'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
        "# check: git push --force => forbidden\n"
    )
    run = lint("c.rules", "--format", "json", cwd=tmp_path)
    assert run.returncode == 1
    (mismatch,) = [f for f in json.loads(run.stdout) if f["code"] == "check-mismatch"]
    assert mismatch["line"] == 2 and mismatch["column"] == 10
    assert mismatch["message"] == (
        "expected forbidden, but Codex decides prompt for `git push --force`"
    )


def test_json_carries_fixes(tmp_path: Path) -> None:
    (tmp_path / "bad.rules").write_text(BAD)
    data = json.loads(lint("bad.rules", "--format", "json", cwd=tmp_path).stdout)
    (bad,) = [f for f in data if f["code"] == "invalid-decision"]
    assert bad["fixes"][0]["title"] == 'Change to "forbidden"'
    assert bad["fixes"][0]["edits"][0]["new_text"] == '"forbidden"'


def test_sarif(tmp_path: Path) -> None:
    (tmp_path / "bad.rules").write_text(BAD)
    (tmp_path / "warn.rules").write_text(WARN)
    run = lint("bad.rules", "warn.rules", "--format", "sarif", cwd=tmp_path)
    assert run.returncode == 1
    doc = json.loads(run.stdout)
    assert doc["version"] == "2.1.0"
    results = doc["runs"][0]["results"]
    levels = {r["ruleId"]: r["level"] for r in results}
    assert levels["invalid-decision"] == "error"
    assert levels["allow-runs-commands"] == "warning"
    region = next(r for r in results if r["ruleId"] == "invalid-decision")["locations"][0]
    assert region["physicalLocation"]["region"]["startColumn"] == 32
    ids = {r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert {"invalid-decision", "allow-runs-commands", "duplicate-rule"} <= ids


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "latin1.rules").write_bytes(b'prefix_rule(pattern = ["caf\xe9"])\n')
    run = lint("latin1.rules", cwd=tmp_path)
    assert run.returncode == 1
    # at the byte itself (`\xe9` is the 28th character), not at the line's start
    assert "latin1.rules:1:28: error[not-utf8] stream did not contain valid UTF-8" in run.stdout
    run = lint("nope.rules", cwd=tmp_path)
    assert run.returncode == 2
    assert "nope.rules: no such file or directory" in run.stderr


def test_a_refused_file_is_one_error_said_once(tmp_path: Path) -> None:
    (tmp_path / "b.rules").write_text('prefix_rule(pattern=["ls"], decision="allw")\n')
    run = lint("b.rules", cwd=tmp_path)
    assert run.returncode == 1
    refused, error = run.stdout.splitlines()
    assert "error[file-refused]" in refused and refused.endswith("(because of the error on line 1)")
    assert "invalid decision: allw" in error and "allw" not in refused
    assert run.stderr.strip() == "1 file(s), 1 error(s), 0 other; Codex refuses 1 file(s)"
    twice = lint(".", "b.rules", "./b.rules", cwd=tmp_path)  # one file, named three ways
    assert twice.stdout == run.stdout
    assert twice.stderr.strip().startswith("1 file(s), 1 error(s)")
