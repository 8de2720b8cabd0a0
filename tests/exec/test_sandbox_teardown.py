"""No process outlives a timeout or a cancel, sandboxed or not; setup failures are not denials."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from exec_helpers import run_in

from shellgate.exec.denial import Outcome
from shellgate.exec.probe import SandboxProbe, run_probe
from shellgate.exec.runner import run_attempt
from shellgate.exec.sandbox import FsAccess, SandboxSetupError, build_spec


def _alive(marker: str) -> list[str]:
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
    return out.split()


def _wait_gone(marker: str, seconds: float = 10) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := _alive(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _sleeper(name: str) -> str:
    # `sh -c 'sleep 300; true' NAME`: the shell stays, with NAME in its command line.
    return f"sh -c 'sleep 300; true' {name}"


def _spawner(marker: str) -> str:
    # A child, a setsid'd nohup grandchild and a double-forked daemon, all sleeping.
    return (
        f"{_sleeper(marker + '-a')} & "
        f"setsid nohup {_sleeper(marker + '-b')} >/dev/null 2>&1 & "
        f"({_sleeper(marker + '-c')} &) ; "
        f"{_sleeper(marker + '-d')}"
    )


def test_timeout_kills_the_sandboxed_tree(probe: SandboxProbe, workspace: Path) -> None:
    marker = f"sg{uuid.uuid4().hex[:10]}"
    r = run_in(probe, workspace, ["sh", "-c", _spawner(marker)], timeout=1.5)
    assert r.timed_out and r.classification.outcome is Outcome.TIMED_OUT
    assert _wait_gone(marker) == []


def test_timeout_kills_the_unsandboxed_tree(workspace: Path) -> None:
    marker = f"sg{uuid.uuid4().hex[:10]}"
    script = (
        f"{_sleeper(marker + '-a')} & ({_sleeper(marker + '-c')} &) ; {_sleeper(marker + '-d')}"
    )
    r = asyncio.run(run_attempt(["sh", "-c", script], cwd=str(workspace), spec=None, timeout=1.5))
    assert r.timed_out
    assert _wait_gone(marker) == []


def test_cancel_kills_the_tree(probe: SandboxProbe, workspace: Path) -> None:
    marker = f"sg{uuid.uuid4().hex[:10]}"
    spec = build_spec(FsAccess.WORKSPACE_WRITE, str(workspace))

    async def go() -> None:
        task = asyncio.ensure_future(
            run_attempt(["sh", "-c", _spawner(marker)], cwd=str(workspace), spec=spec, probe=probe)
        )
        for _ in range(100):
            await asyncio.sleep(0.05)
            if len(_alive(marker)) >= 3:
                break
        assert _alive(marker), "the command never started"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert _wait_gone(marker) == []


def test_exit_status_and_signals_come_through(probe: SandboxProbe, workspace: Path) -> None:
    assert run_in(probe, workspace, ["sh", "-c", "exit 7"]).exit_code == 7
    killed = run_in(probe, workspace, ["sh", "-c", "kill -9 $$"])
    assert killed.exit_code == 137 and killed.classification.outcome is Outcome.FAILED
    missing = run_in(probe, workspace, ["/nonexistent/program"])
    assert missing.exit_code == 127 and missing.classification.outcome is Outcome.FAILED


def test_missing_writable_root_is_a_setup_error(workspace: Path) -> None:
    with pytest.raises(SandboxSetupError, match="does not exist"):
        build_spec(FsAccess.WORKSPACE_WRITE, str(workspace), extra_roots=["/nonexistent/root"])


def test_probe_reports_missing_bwrap() -> None:
    p = run_probe(None)
    assert not p.ok and "bubblewrap not found" in p.reason


def test_probe_fails_without_user_namespaces(probe: SandboxProbe, tmp_path: Path) -> None:
    # A real failure: bwrap run where creating user namespaces is disabled.
    assert probe.bwrap is not None
    wrapper = tmp_path / "bwrap-no-userns"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"exec {probe.bwrap} --unshare-user --disable-userns --ro-bind / / --dev /dev "
        f'-- {probe.bwrap} "$@"\n'
    )
    wrapper.chmod(0o755)
    p = run_probe(str(wrapper))
    assert not p.ok
    assert p.reason.startswith("sandbox unavailable: bwrap:"), p.reason
    assert os.access(probe.bwrap, os.X_OK)
