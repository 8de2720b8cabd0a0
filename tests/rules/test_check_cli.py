"""`shellgate check` as a real process: output against rules-schema/check.schema.json, usage
errors, error reports, and the compiled-policy cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "rules-schema" / "check.schema.json").read_text())
POLICY = """
host_executable(name="git", paths=["/usr/bin/git"])
prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt", justification="network")
prefix_rule(pattern=["git"], decision="allow")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="tab\\there \\u0001 é")
"""


def run(tmp_path: Path, *args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache or tmp_path / "cache"), HOME=str(tmp_path))
    return subprocess.run(
        [sys.executable, "-m", "shellgate", "check", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    path = tmp_path / "p.rules"
    path.write_text(POLICY)
    return path


@pytest.mark.parametrize(
    ("command", "flags", "decision"),
    [
        (["git", "push", "origin"], [], "prompt"),
        (["/usr/bin/git", "fetch"], ["--resolve-host-executables"], "prompt"),
        (["rm", "-rf", "/"], ["--pretty"], "forbidden"),
        (["ls"], [], None),
    ],
)
def test_output_follows_the_schema(
    tmp_path: Path, policy: Path, command: list[str], flags: list[str], decision: str | None
) -> None:
    proc = run(tmp_path, "--rules", policy.name, *flags, "--", *command)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = json.loads(proc.stdout)
    jsonschema.validate(out, SCHEMA)
    assert out.get("decision") == decision
    if "--pretty" in flags:
        assert proc.stdout == json.dumps(out, ensure_ascii=False, indent=2) + "\n"
    else:
        assert proc.stdout == json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n"


def test_resolved_program_and_escaping(tmp_path: Path, policy: Path) -> None:
    proc = run(tmp_path, "-r", str(policy), "--resolve-host-executables", "--", "/usr/bin/git")
    assert json.loads(proc.stdout)["matchedRules"][0]["prefixRuleMatch"] == {
        "matchedPrefix": ["git"],
        "decision": "allow",
        "resolvedProgram": "/usr/bin/git",
    }
    proc = run(tmp_path, "--rules", str(policy), "--", "rm", "-rf")
    assert '"justification":"tab\\there \\u0001 é"' in proc.stdout


@pytest.mark.parametrize(
    ("args", "first_line"),
    [
        (["--rules", "p.rules"], "error: the following required arguments were not provided:"),
        (["--", "ls"], "error: the following required arguments were not provided:"),
        # As in Codex, an unknown option starts the command (so `--rules` is part of it).
        (
            ["--bogus", "--rules", "p.rules", "--", "ls"],
            "error: the following required arguments were not provided:",
        ),
        (
            ["--rules", "p.rules", "--rules", "--", "ls"],
            "error: a value is required for '--rules <PATH>' but none was supplied",
        ),
        (
            ["--rules=", "--", "ls"],
            "error: a value is required for '--rules <PATH>' but none was supplied",
        ),
        (
            ["--rules", "p.rules", "--pretty", "--pretty", "--", "ls"],
            "error: the argument '--pretty' cannot be used multiple times",
        ),
        (
            ["--rules", "p.rules", "--pretty=true", "--", "ls"],
            "error: unexpected value 'true' for '--pretty' found; no more were expected",
        ),
        (["-rp.rules", "--", "ls"], "error: the following required arguments were not provided:"),
    ],
)
def test_usage_errors_exit_2(
    tmp_path: Path, policy: Path, args: list[str], first_line: str
) -> None:
    proc = run(tmp_path, *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines()[0] == first_line


def test_policy_errors_exit_1_with_codex_first_line(tmp_path: Path) -> None:
    (tmp_path / "bad.rules").write_text('prefix_rule(pattern=["ls"], decision="deny")\n')
    proc = run(tmp_path, "--rules", "bad.rules", "--", "ls")
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[:3] == ["Error: failed to parse policy at bad.rules", "", "Caused by:"]
    assert "invalid decision: deny" in proc.stderr
    assert "bad.rules:1:29" in proc.stderr
    proc = run(tmp_path, "--rules", "nope.rules", "--", "ls")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == "Error: failed to read policy at nope.rules"


def test_cache_is_keyed_by_content(tmp_path: Path) -> None:
    cache = tmp_path / "c"
    rules = tmp_path / "p.rules"
    rules.write_text('prefix_rule(pattern=["ls"], decision="prompt")\n')
    first = run(tmp_path, "--rules", "p.rules", "--", "ls", cache=cache)
    entries = list((cache / "shellgate" / "check").iterdir())
    assert len(entries) == 1
    again = run(tmp_path, "--rules", "p.rules", "--", "ls", cache=cache)
    assert again.stdout == first.stdout
    assert list((cache / "shellgate" / "check").iterdir()) == entries  # served from the cache
    rules.write_text('prefix_rule(pattern=["ls"], decision="forbidden")\n')
    changed = run(tmp_path, "--rules", "p.rules", "--", "ls", cache=cache)
    assert json.loads(changed.stdout)["decision"] == "forbidden"
    assert len(list((cache / "shellgate" / "check").iterdir())) == 2


def test_a_damaged_cache_entry_is_not_trusted(tmp_path: Path) -> None:
    cache = tmp_path / "c"
    (tmp_path / "p.rules").write_text('prefix_rule(pattern=["ls"], decision="prompt")\n')
    first = run(tmp_path, "--rules", "p.rules", "--", "ls", cache=cache)
    (entry,) = (cache / "shellgate" / "check").iterdir()
    for junk in (b"garbage", marshal_bytes([{"ls": [("bad",)]}, {}]), b""):
        entry.write_bytes(junk)
        again = run(tmp_path, "--rules", "p.rules", "--", "ls", cache=cache)
        assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, "")


def marshal_bytes(value: object) -> bytes:
    import marshal

    return marshal.dumps(value)


def test_a_closed_stdout_is_not_a_traceback(tmp_path: Path, policy: Path) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellgate", "check", "--rules", str(policy), "--", "git"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) in (0, 1)  # 0 only if it wrote before the close
    assert b"Traceback" not in err
