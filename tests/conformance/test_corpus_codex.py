"""The execpolicy corpus replayed through `codex execpolicy check` of every pinned version but
the one it was recorded from (0.169.0): the answers test_execpolicy.py holds ShellGate to must be
what each newer binary says too, so a new pin is checked against the whole corpus.

Run as the oracle ran them (conformance README, test_execpolicy.py): rules files by name under
/tmp/codex-execpolicy-oracle/work, HOME=CODEX_HOME=.../home, TMPDIR=.../tmpdir, under the shared
lock, one case at a time (resolved paths name the folder). Compared: exit code, standard output,
the first `Error:` line and the cause line (the oracle's `error_detail`).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conformance_corpus import DATA_DIR, case_id, rows, rows_from
from live_policies import network_wrap

import realtools

ORACLE_ROOT = Path("/tmp/codex-execpolicy-oracle")
LOCK = Path("/tmp/codex-execpolicy-oracle.lock")
RECORDED_WITH = "0.169.0"
CASES = rows("execpolicy_cases.jsonl") + rows_from(DATA_DIR / "execpolicy_binary_cases.jsonl")


def _error_detail(stderr: str) -> str:
    lines = stderr.splitlines()
    for line in lines:
        if line.strip().startswith("error: "):
            return line.strip()
    for i, line in enumerate(lines):
        if line.strip() == "Caused by:":
            return next((n.strip() for n in lines[i + 1 :] if n.strip()), "")
    return lines[0] if lines else ""


def _run(codex: Path, case: dict[str, Any], wrap: list[str]) -> dict[str, Any]:
    shutil.rmtree(ORACLE_ROOT, ignore_errors=True)
    for sub in ("home", "work", "tmpdir"):
        (ORACLE_ROOT / sub).mkdir(parents=True)
    work = ORACLE_ROOT / "work"
    argv = [*wrap, str(codex), "execpolicy", "check"]
    for name, text in case["rules"].items():
        if text is not None:
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(text.encode("utf-8"))
        argv += ["--rules", name]
    argv += ["--resolve-host-executables"] * bool(case.get("resolve_host_executables"))
    argv += ["--pretty"] * bool(case.get("pretty"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUST_")}
    home = str(ORACLE_ROOT / "home")
    env.update(HOME=home, CODEX_HOME=home, TMPDIR=str(ORACLE_ROOT / "tmpdir"), RUST_BACKTRACE="0")
    proc = subprocess.run(
        [*argv, "--", *case["command"]], cwd=work, env=env, capture_output=True, timeout=60
    )
    stdout, stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    got: dict[str, Any] = {"expect_exit_code": proc.returncode}
    if proc.returncode == 0:
        got["expect_stdout"] = stdout.removesuffix("\n")
    else:
        lines = stderr.splitlines()
        errors = [line for line in lines if line.startswith("Error:")]
        got["error_excerpt"] = errors[0] if errors else (lines[0] if lines else "")
        got["error_detail"] = _error_detail(stderr)
    return got


@pytest.mark.parametrize("version", [v for v in realtools.CODEX_VERSIONS if v != RECORDED_WITH])
def test_corpus_holds_for_codex(version: str) -> None:
    codex = realtools.codex(version)
    wrap = network_wrap()
    differ: list[str] = []
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for i, case in enumerate(CASES):
                got = _run(codex, case, wrap)
                want = {k: case.get(k) for k in got}
                if got != want:
                    differ.append(f"{case_id(case, i)}: recorded {want}, codex {version}: {got}")
        finally:
            shutil.rmtree(ORACLE_ROOT, ignore_errors=True)
            fcntl.flock(lock, fcntl.LOCK_UN)
    assert not differ, f"{len(differ)} of {len(CASES)} cases differ:\n" + "\n".join(differ[:20])
