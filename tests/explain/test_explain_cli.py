"""The real `shellgate explain` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _run(args: list[str], home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(home), "XDG_CACHE_HOME": str(home.parent / "cache")}
    return subprocess.run(
        [sys.executable, "-m", "shellgate", "explain", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "codex-home"
    (home / "rules").mkdir(parents=True)
    (home / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["git", "status"], decision="allow")\n', encoding="utf-8"
    )
    return home


def test_text_reads_verdict_first_and_names_the_user_layer(home: Path) -> None:
    proc = _run(["--shell", "git status && cargo build"], home)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "ALLOWED  runs in the sandbox without asking"
    assert f"rule {home}/rules/default.rules:1 [user] `git status` allow" in proc.stdout
    assert "heuristics: no rule matched" in proc.stdout


def test_json_with_a_trusted_project_and_extra_rules(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "p.rules").write_text(
        'prefix_rule(pattern=["cargo"], decision="prompt", justification="builds are slow")\n',
        encoding="utf-8",
    )
    extra = tmp_path / "extra.rules"
    extra.write_text('prefix_rule(pattern=["git"], decision="allow")\n', encoding="utf-8")
    args = ["--json", "--rules", str(extra), "--", "bash", "-lc", "git status && cargo build"]
    untrusted = json.loads(_run(args, home).stdout)
    assert untrusted["requirement"] == {
        "type": "skip",
        "bypass_sandbox": False,
        "proposed_execpolicy_amendment": None,
    }
    assert [f["layer"] for f in untrusted["rules_files"]] == ["user", "cli"]
    trusted = json.loads(_run(["--project", str(project), *args], home).stdout)
    assert trusted["decision"] == "prompt"
    assert trusted["requirement"]["reason"] == (
        "`bash -lc 'git status && cargo build'` requires approval: builds are slow"
    )
    layers = [[r["layer"] for r in s["matched_rules"]] for s in trusted["segments"]]
    assert layers == [["user", "cli"], ["project"]]


def test_granular_policy_and_escalation_flags(home: Path) -> None:
    policy = '{"granular": {"sandbox_approval": false, "rules": true, "mcp_elicitations": true}}'
    proc = _run(
        ["--json", "--approval-policy", policy, "--sandbox-permissions", "require_escalated",
         "--justification", "needs network", "--", "pwd"],
        home,
    )  # fmt: skip
    out = json.loads(proc.stdout)
    assert "decision" not in out
    assert out["requirement"]["reason"].startswith(
        "approval policy is Granular(GranularApprovalConfig { sandbox_approval: false, "
        "rules: true, skill_approval: false, request_permissions: false, mcp_elicitations: true })"
    )
    asked = json.loads(
        _run(["--json", "--sandbox-permissions", "require_escalated", "--justification",
              "needs network", "--", "pwd"], home).stdout
    )  # fmt: skip
    assert asked["requirement"]["reason"] == "needs network"
    assert asked["first_attempt"] == {
        "sandbox_override": "bypass_sandbox_first_attempt",
        "sandboxed": False,
    }


def test_broken_rules_exit_1_with_file_line_column(home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text('\nprefix_rule(pattern=["rm"], decision="deny")\n', encoding="utf-8")
    proc = _run(["--rules", str(bad), "--", "rm", "-rf", "/"], home)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert f"{bad}:2:" in proc.stderr
    assert "Traceback" not in proc.stderr
    missing = _run(["--rules", str(tmp_path / "nope.rules"), "--", "ls"], home)
    assert missing.returncode == 1 and "nope.rules" in missing.stderr
    broken_home = tmp_path / "h2"
    (broken_home / "rules").mkdir(parents=True)
    (broken_home / "rules" / "x.rules").write_bytes(b"\xff\xfe")
    proc = _run(["--", "ls"], broken_home)
    assert proc.returncode == 1 and "x.rules" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--shell", "ls", "--", "ls"],
        ["--approval-policy", "sometimes", "--", "ls"],
        ["--approval-policy", '{"granular": {}}', "--", "ls"],
        ["--sandbox", "none", "--", "ls"],
        ["--sandbox-permissions", "with_additional_permissions", "--", "ls"],
        ["ls", "-la"],
        ["--project", "/nonexistent/project", "--", "ls"],
        ["--codex-home", "/nonexistent/home", "--", "ls"],
    ],
)
def test_usage_errors_exit_2(home: Path, args: list[str]) -> None:
    proc = _run(args, home)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip()


def test_cached_policy_gives_the_same_answer_and_follows_edits(home: Path, tmp_path: Path) -> None:
    rules = tmp_path / "r.rules"
    rules.write_text('prefix_rule(pattern=["make"], decision="prompt")\n', encoding="utf-8")
    args = ["--json", "--rules", str(rules), "--", "make", "all"]
    first = _run(args, home)
    assert list((home.parent / "cache" / "shellgate" / "layers").iterdir())
    second = _run(args, home)
    assert first.stdout == second.stdout
    assert json.loads(second.stdout)["segments"][0]["matched_rules"][0]["line"] == 1
    rules.write_text('\nprefix_rule(pattern=["make"], decision="forbidden")\n', encoding="utf-8")
    edited = json.loads(_run(args, home).stdout)
    assert edited["decision"] == "forbidden"
    assert edited["segments"][0]["matched_rules"][0]["line"] == 2


def test_an_empty_program_is_a_usage_error_and_never_an_amendment(home: Path) -> None:
    proc = _run(["--", ""], home)
    assert proc.returncode == 2 and 'pattern=[""]' not in proc.stdout
    assert "has no program (its first word is '')" in proc.stderr
    blank = _run(["--json", "--", "ls", ""], home)
    requirement = json.loads(blank.stdout)["requirement"]
    assert blank.returncode == 0 and requirement["proposed_execpolicy_amendment"] is None


@pytest.mark.parametrize("command", [["ls"], ["ls", "-la"], ["git", "status", "--short"]])
def test_the_table_columns_align_whatever_the_command_length(
    home: Path, command: list[str]
) -> None:
    lines = _run(["--", *command], home).stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("  #  command"))
    column = lines[head].index("decision")
    assert lines[head + 1][column:].split()[0] in ("allow", "prompt", "forbidden"), lines
    assert lines[head + 1][column - 2 : column] == "  "
