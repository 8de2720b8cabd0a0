"""Real bubblewrap attempts, checked on the host's disk."""

from __future__ import annotations

import os
from pathlib import Path

from exec_helpers import git, run_in

from shellgate.exec.denial import Outcome
from shellgate.exec.probe import SandboxProbe
from shellgate.exec.sandbox import FsAccess


def test_write_inside_workspace_lands_on_host(probe: SandboxProbe, workspace: Path) -> None:
    r = run_in(probe, workspace, ["sh", "-c", "echo made > inside.txt"])
    assert r.exit_code == 0, r.stderr
    assert r.classification.outcome is Outcome.OK
    assert (workspace / "inside.txt").read_text() == "made\n"


def test_write_outside_roots_is_denied_and_absent(
    probe: SandboxProbe, workspace: Path, outside: Path
) -> None:
    target = outside / "escape.txt"
    r = run_in(probe, workspace, ["sh", "-c", f"echo x > {target}"])
    assert r.exit_code != 0
    assert "Read-only file system" in r.stderr
    assert r.classification.outcome is Outcome.FS_DENIED
    assert str(target) in r.classification.paths
    assert not target.exists()


def test_python_open_outside_is_erofs(probe: SandboxProbe, workspace: Path, outside: Path) -> None:
    target = outside / "py.txt"
    r = run_in(probe, workspace, ["python3", "-c", f"open({str(target)!r}, 'w').write('x')"])
    assert r.exit_code == 1
    assert "[Errno 30] Read-only file system" in r.stderr
    assert r.classification.outcome is Outcome.FS_DENIED
    assert str(target) in r.classification.paths
    assert not target.exists()


def test_tmp_is_writable(probe: SandboxProbe, workspace: Path) -> None:
    marker = Path("/tmp") / f"shellgate-test-{os.getpid()}-{workspace.name}"
    try:
        r = run_in(probe, workspace, ["sh", "-c", f"echo t > {marker}"])
        assert r.exit_code == 0, r.stderr
        assert marker.read_text() == "t\n"
    finally:
        marker.unlink(missing_ok=True)


def test_read_only_mode_denies_the_workspace_but_not_dev_null(
    probe: SandboxProbe, workspace: Path
) -> None:
    r = run_in(probe, workspace, ["sh", "-c", "echo x > ro.txt"], fs=FsAccess.READ_ONLY)
    assert r.classification.outcome is Outcome.FS_DENIED
    assert not (workspace / "ro.txt").exists()
    r = run_in(
        probe, workspace, ["sh", "-c", "echo x > /dev/null && cat README"], fs=FsAccess.READ_ONLY
    )
    assert r.exit_code == 0 and r.stdout == "hello\n"


def _git_state(ws: Path) -> tuple[str, str, bytes]:
    return (
        git(ws, "log", "--format=%H %s"),
        git(ws, "status", "--porcelain"),
        (ws / ".git" / "config").read_bytes(),
    )


def test_git_dir_stays_read_only(probe: SandboxProbe, workspace: Path) -> None:
    before = _git_state(workspace)
    (workspace / "new.txt").write_text("n\n")
    attempts = {
        "commit": "git add new.txt && git commit -q -m evil",
        "config": "echo '[core]\n\thooksPath = /tmp/evil' >> .git/config",
        "hook": "echo 'echo pwned' > .git/hooks/pre-commit",
        "rm": "rm -rf .git",
        "mv": "mv .git gone",
    }
    for name, script in attempts.items():
        r = run_in(probe, workspace, ["sh", "-c", script])
        assert r.exit_code != 0, name
        assert r.classification.outcome.is_denial or "busy" in r.stderr, (name, r.stderr)
    assert _git_state(workspace) == (before[0], "?? new.txt\n", before[2])
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    git(workspace, "fsck", "--no-progress")


def test_protection_cannot_be_undone(probe: SandboxProbe, workspace: Path) -> None:
    script = (
        "mount -o remount,rw,bind .git 2>&1; echo remount=$?; "
        "umount .git 2>&1; echo umount=$?; "
        "unshare -Urm sh -c 'echo nested' 2>&1; echo unshare=$?; "
        "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status; "
        "echo x > .git/after-remount; echo write=$?"
    )
    r = run_in(probe, workspace, ["sh", "-c", script])
    out = r.stdout
    assert "remount=0" not in out and "umount=0" not in out and "unshare=0" not in out, out
    assert "nested" not in out.replace("echo nested", "")
    assert "CapEff:\t0000000000000000" in out
    assert "NoNewPrivs:\t1" in out
    assert "Seccomp:\t2" in out
    assert "write=0" not in out
    assert not (workspace / ".git" / "after-remount").exists()


def test_missing_git_gets_a_placeholder_that_is_removed(
    probe: SandboxProbe, tmp_path: Path
) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    r = run_in(probe, ws, ["sh", "-c", "git init -q . && echo initialised"])
    assert r.exit_code != 0
    assert r.classification.outcome is Outcome.FS_DENIED
    r = run_in(probe, ws, ["sh", "-c", "mkdir -p .codex/rules && echo x > .codex/rules/a.rules"])
    assert r.classification.outcome is Outcome.FS_DENIED
    assert sorted(os.listdir(ws)) == []  # placeholders cleaned up, nothing written


def test_git_worktree_gitdir_is_protected(probe: SandboxProbe, workspace: Path) -> None:
    wt = workspace.parent / "wt"
    git(workspace, "worktree", "add", "-q", str(wt))
    before = git(workspace, "log", "--all", "--format=%H")
    r = run_in(probe, wt, ["sh", "-c", "echo y > f && git add f && git commit -q -m wt"])
    assert r.exit_code != 0
    assert r.classification.outcome is Outcome.FS_DENIED
    assert git(workspace, "log", "--all", "--format=%H") == before


def test_a_placeholder_outlives_a_concurrent_sandbox(probe: SandboxProbe, tmp_path: Path) -> None:
    """B ends while A, started after B's placeholder existed, still runs: B's cleanup must not
    remove the placeholder (that would detach A's mount and let A create `.codex` on the host).
    """
    import asyncio

    from shellgate.exec.runner import run_attempt
    from shellgate.exec.sandbox import build_spec

    ws = tmp_path / "shared"
    ws.mkdir()

    def spec() -> object:
        return build_spec(FsAccess.WORKSPACE_WRITE, str(ws))

    async def go() -> str:
        b = asyncio.ensure_future(run_attempt(["sleep", "0.6"], cwd=str(ws), spec=spec(),
                                              probe=probe))  # type: ignore[arg-type]  # fmt: skip
        await asyncio.sleep(0.3)  # B's placeholders exist now
        a = asyncio.ensure_future(run_attempt(
            ["sh", "-c", "sleep 1.5; mkdir -p .codex/evil 2>&1; echo > .codex/x; true"],
            cwd=str(ws), spec=spec(), probe=probe, timeout=30))  # type: ignore[arg-type]  # fmt: skip
        await b  # B ends and cleans up while A sleeps
        done = await a
        return done.stdout + done.stderr

    out = asyncio.run(go())
    assert out.count("Read-only file system") == 2, out
    assert sorted(os.listdir(ws)) == []  # removed once the last user ended, never written
