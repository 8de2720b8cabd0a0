"""Every case of execpolicy_cases.jsonl through the real `shellgate check` process, run exactly
as the oracle ran `codex execpolicy check` (conformance README): rule files written by name
under /tmp/codex-execpolicy-oracle/work (cwd), HOME=CODEX_HOME=.../home, TMPDIR=.../tmpdir,
so resolved program paths come out identical. The directory is shared, hence a file lock.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conformance_corpus import DATA_DIR, case_id, rows, rows_from

ORACLE_ROOT = Path("/tmp/codex-execpolicy-oracle")
LOCK = Path("/tmp/codex-execpolicy-oracle.lock")
# The shared corpus (or the kept-back one, via SHELLGATE_CONFORMANCE_DIR), then cases found by
# running the codex 0.169.0 binary side by side with ShellGate (filled by the oracle; always
# read from this folder).
CASES = rows("execpolicy_cases.jsonl") + rows_from(DATA_DIR / "execpolicy_binary_cases.jsonl")
KNOWN_KEYS = {
    "id",
    "rules",
    "resolve_host_executables",
    "pretty",
    "command",
    "source",
    "note",
    "expect_exit_code",
    "expect",
    "expect_stdout",
    "expect_error",
    "error_excerpt",
    "error_detail",
    "stderr",
}


@pytest.fixture
def oracle_dir() -> Iterator[Path]:
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            shutil.rmtree(ORACLE_ROOT, ignore_errors=True)
            for sub in ("home", "work", "tmpdir"):
                (ORACLE_ROOT / sub).mkdir(parents=True)
            yield ORACLE_ROOT
        finally:
            shutil.rmtree(ORACLE_ROOT, ignore_errors=True)
            fcntl.flock(lock, fcntl.LOCK_UN)


def _shape_error(case: dict[str, Any]) -> str | None:
    unknown = set(case) - KNOWN_KEYS
    if unknown:
        return f"unknown keys {sorted(unknown)}"
    if not isinstance(case.get("rules"), dict) or not isinstance(case.get("command"), list):
        return "needs `rules` (object) and `command` (list)"
    if not isinstance(case.get("expect_exit_code"), int):
        return "needs `expect_exit_code`"
    if "expect_stdout" not in case and not case.get("expect_error"):
        return "needs `expect_stdout` or `expect_error`"
    return None


@pytest.mark.parametrize("case", CASES, ids=[case_id(c, i) for i, c in enumerate(CASES)])
def test_execpolicy_case(case: dict[str, Any], oracle_dir: Path) -> None:
    problem = _shape_error(case)
    if problem:
        pytest.fail(f"case {case.get('id')}: unknown case shape: {problem}")
    work = oracle_dir / "work"
    argv = [sys.executable, "-m", "shellgate", "check"]
    for name, text in case["rules"].items():
        if text is not None:
            path = work / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        argv += ["--rules", name]
    if case.get("resolve_host_executables"):
        argv.append("--resolve-host-executables")
    if case.get("pretty"):
        argv.append("--pretty")
    argv += ["--", *case["command"]]
    env = dict(os.environ)
    env.update(
        HOME=str(oracle_dir / "home"),
        CODEX_HOME=str(oracle_dir / "home"),
        TMPDIR=str(oracle_dir / "tmpdir"),
        XDG_CACHE_HOME=str(oracle_dir / "tmpdir" / "cache"),
    )
    proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=120)
    stdout = proc.stdout.decode("utf-8")
    stderr = proc.stderr.decode("utf-8")
    assert "Traceback (most recent call last)" not in stderr, stderr
    assert proc.returncode == case["expect_exit_code"], stderr
    if "expect_stdout" in case:
        assert stdout == case["expect_stdout"] + "\n"
        assert stderr == ""
    else:
        lines = stderr.splitlines()
        errors = [line for line in lines if line.startswith("Error:")]
        first = errors[0] if errors else (lines[0] if lines else "")
        assert first == case["error_excerpt"], stderr
        assert stdout == ""
