"""deny_read (requirements.toml `[permissions.filesystem]`): what it names cannot be read by a
sandboxed command, in read-only, workspace-write and a requested danger-full-access (Codex's
clamp to read-only), globs included; checked on the command's output, with real bubblewrap.
`shellgate sandbox` reads it from /etc/codex/requirements.toml (a scratch folder bound there in
a private mount namespace: the machine's /etc is never written)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from exec_helpers import GIT_ENV

from etc_overlay import etc_overlay_argv
from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import AutomaticApprover
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import SandboxProbe
from shellgate.exec.results import ExecRequest, ExecResult, Status
from shellgate.exec.runner import AttemptResult, run_attempt
from shellgate.exec.sandbox import FsAccess, build_spec
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy

SECRET = "s3cr3t-value"


@pytest.fixture
def secrets(outside: Path) -> Path:
    (outside / "keys").mkdir()
    (outside / "keys" / "id").write_text(SECRET + "-dir\n")
    (outside / "a.txt").write_text(SECRET + "-a\n")
    (outside / "b.md").write_text("readable\n")
    (outside / "secret.txt").write_text(SECRET + "\n")
    return outside


def attempt(
    probe: SandboxProbe, cwd: Path, fs: FsAccess, deny: list[str], script: str
) -> AttemptResult:
    spec = build_spec(fs, str(cwd), deny_read=deny)
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    return asyncio.run(run_attempt(["sh", "-c", script], cwd=str(cwd), env=env, spec=spec,
                                   probe=probe, timeout=30))  # fmt: skip


@pytest.mark.parametrize("fs", [FsAccess.READ_ONLY, FsAccess.WORKSPACE_WRITE])
def test_a_denied_file_dir_and_glob_cannot_be_read(
    probe: SandboxProbe, workspace: Path, secrets: Path, fs: FsAccess
) -> None:
    deny = [str(secrets / "secret.txt"), str(secrets / "keys"), str(secrets / "*.txt")]
    script = f"cd {secrets}; cat secret.txt; cat keys/id; ls keys; cat a.txt; cat b.md"
    r = attempt(probe, workspace, fs, deny, script)
    assert SECRET not in r.stdout + r.stderr
    assert "secret.txt: Permission denied" in r.stderr
    assert "keys/id: Permission denied" in r.stderr and "'keys': Permission denied" in r.stderr
    assert "a.txt: Permission denied" in r.stderr
    assert r.stdout == "readable\n"  # the glob matched *.txt only
    assert (secrets / "secret.txt").read_text() == SECRET + "\n"  # the host's file untouched


def test_without_deny_read_the_same_files_are_read(
    probe: SandboxProbe, workspace: Path, secrets: Path
) -> None:
    r = attempt(probe, workspace, FsAccess.READ_ONLY, [], f"cat {secrets}/secret.txt")
    assert r.stdout == SECRET + "\n"  # the control: the mask above is what denied it


def test_a_denied_file_in_the_workspace_cannot_be_read_moved_or_replaced(
    probe: SandboxProbe, workspace: Path
) -> None:
    (workspace / ".env").write_text(SECRET + "\n")
    r = attempt(probe, workspace, FsAccess.WORKSPACE_WRITE, [str(workspace / ".env")],
                "cat .env; mv .env moved; rm -f .env; chmod 644 .env; cat .env; "
                "echo made > other")  # fmt: skip
    assert SECRET not in r.stdout + r.stderr
    assert (workspace / ".env").read_text() == SECRET + "\n"
    assert not (workspace / "moved").exists()
    assert (workspace / "other").read_text() == "made\n"  # the rest of the workspace is writable


def test_a_symlink_to_a_denied_file_is_denied_and_so_is_the_link_named(
    probe: SandboxProbe, workspace: Path, secrets: Path
) -> None:
    (workspace / "link").symlink_to(secrets / "secret.txt")
    r = attempt(probe, workspace, FsAccess.READ_ONLY, [str(workspace / "link")],
                f"cat link; cat {secrets}/secret.txt")  # fmt: skip
    assert SECRET not in r.stdout and r.stderr.count("Permission denied") == 2


def orchestrate(
    tmp_path: Path, probe: SandboxProbe, cwd: Path, mode: SandboxMode, deny: list[str],
    *command: str, policy: Policy | None = None,
) -> tuple[ExecResult, AutomaticApprover]:
    approver = AutomaticApprover(script=lambda req: "approved")
    orch = Orchestrator(policy or Policy(), approver,
                        ExecContext(ApprovalPolicy.parse("on-failure"), mode),
                        codex_home=str(tmp_path / "codex-home"), probe=probe,
                        deny_read=tuple(deny))  # fmt: skip
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", **GIT_ENV, "HOME": str(cwd)}
    return asyncio.run(orch.run(ExecRequest(tuple(command), str(cwd), env=env))), approver


def test_requested_danger_full_access_is_clamped_to_read_only(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, secrets: Path
) -> None:
    deny = [str(secrets / "secret.txt")]
    r, approver = orchestrate(tmp_path, probe, workspace, SandboxMode.DANGER_FULL_ACCESS, deny,
                              "sh", "-c", f"cat {secrets}/secret.txt; touch made")  # fmt: skip
    assert r.status is Status.COMPLETED
    assert SECRET not in r.stdout and "Permission denied" in r.stderr
    assert not (workspace / "made").exists()  # read-only, not full access
    assert r.attempts and all(a.sandboxed for a in r.attempts)
    # on-failure would offer "retry without the sandbox"; with deny_read it is not offered
    assert approver.asked == []


def test_an_allow_rule_no_longer_takes_the_command_out_of_the_sandbox(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, secrets: Path
) -> None:
    policy = Policy()
    policy.add_prefix_rule(["cat"], Decision.ALLOW)
    deny = [str(secrets / "secret.txt")]
    r, _ = orchestrate(tmp_path, probe, workspace, SandboxMode.WORKSPACE_WRITE, deny,
                       "cat", f"{secrets}/secret.txt", policy=policy)  # fmt: skip
    assert SECRET not in r.stdout and "Permission denied" in r.stderr
    r, _ = orchestrate(tmp_path, probe, workspace, SandboxMode.WORKSPACE_WRITE, [],
                       "cat", f"{secrets}/secret.txt", policy=policy)  # fmt: skip
    assert r.stdout == SECRET + "\n"  # the control: Codex runs an allowed command unsandboxed


def sandbox_cli(
    tmp_path: Path, cwd: Path, requirements: str, *args: str
) -> subprocess.CompletedProcess[str]:
    etc = tmp_path / "etc-codex"
    etc.mkdir(exist_ok=True)
    (etc / "requirements.toml").write_text(requirements)
    command = [sys.executable, "-I", "-m", "shellgate", "sandbox", *args]
    argv = etc_overlay_argv(tmp_path / "scratch", {"codex": etc}, command)
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("mode", ["read-only", "workspace-write", "danger-full-access"])
def test_shellgate_sandbox_applies_the_system_requirements(
    tmp_path: Path, probe: SandboxProbe, workspace: Path, secrets: Path, mode: str
) -> None:
    req = f'[permissions.filesystem]\ndeny_read = ["{secrets}/*.txt"]\n'
    done = sandbox_cli(tmp_path, workspace, req, "--mode", mode, "--",
                       "sh", "-c", f"cat {secrets}/secret.txt {secrets}/b.md")  # fmt: skip
    assert SECRET not in done.stdout and "secret.txt: Permission denied" in done.stderr
    assert done.stdout == "readable\n"
    if mode == "danger-full-access":
        assert "danger-full-access clamped to read-only" in done.stderr
    ignored = sandbox_cli(tmp_path, workspace, req, "--mode", mode, "--exclude-managed-config",
                          "--", "cat", f"{secrets}/secret.txt")  # fmt: skip
    assert ignored.stdout == SECRET + "\n", ignored.stderr


def test_a_broken_requirements_file_runs_nothing(
    tmp_path: Path, probe: SandboxProbe, workspace: Path
) -> None:
    done = sandbox_cli(tmp_path, workspace, "[permissions.filesystem\n", "--mode", "read-only",
                       "--", "touch", "/tmp/never")  # fmt: skip
    assert done.returncode == 125
    assert "/etc/codex/requirements.toml" in done.stderr
    assert "the command was not run" in done.stderr
