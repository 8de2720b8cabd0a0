"""`shellgate run` as a user meets it: a real process, answers typed on stdin or on a pty."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shellgate.exec.probe import SandboxProbe

SHELLGATE = [sys.executable, "-m", "shellgate"]


def sg(cwd: Path, home: Path, *args: str, answers: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    return subprocess.run([*SHELLGATE, "run", *args], cwd=cwd, env=env, input=answers,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_exit_status_is_the_commands(probe: SandboxProbe, workspace: Path, tmp_path: Path) -> None:
    r = sg(workspace, tmp_path, "--", "sh", "-c", "echo out; echo err >&2; exit 3")
    assert (r.returncode, r.stdout, r.stderr) == (3, "out\n", "err\n")


def test_forbidden_denied_aborted_and_timeout_statuses(
    probe: SandboxProbe, workspace: Path, tmp_path: Path
) -> None:
    rules = tmp_path / "deny.rules"
    rules.write_text('prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n')
    r = sg(workspace, tmp_path, "--rules", str(rules), "--", "rm", "README")
    assert r.returncode == 121 and "`rm README` rejected: no rm" in r.stderr
    assert (workspace / "README").exists()
    r = sg(workspace, tmp_path, "--approval-policy", "untrusted", "--", "touch", "a", answers="d\n")
    assert r.returncode == 122 and not (workspace / "a").exists()
    r = sg(workspace, tmp_path, "--approval-policy", "untrusted", "--", "touch", "a", answers="n\n")
    assert r.returncode == 123 and "aborted" in r.stderr
    r = sg(workspace, tmp_path, "--approval-policy", "untrusted", "--", "touch", "a", answers="")
    assert r.returncode == 122  # nobody to answer: no, and said so (no "rejected by user")
    assert "no answer: standard input is closed: treated as denied" in r.stderr
    assert "rejected by user" not in r.stderr
    assert "No, and stop" in r.stderr and "Codex" not in r.stderr  # nobody to tell
    r = sg(workspace, tmp_path, "--timeout", "0.5", "--", "sleep", "30")
    assert r.returncode == 124 and "timed out" in r.stderr


@pytest.mark.parametrize("answers", [None, "y\n"], ids=["dev-null", "a-file"])
def test_answers_from_a_file_or_dev_null(
    workspace: Path, tmp_path: Path, answers: str | None
) -> None:
    """epoll refuses regular files and /dev/null: the question still reads them (EOF is no)."""
    source = tmp_path / "answers"
    source.write_text(answers or "")
    env = {**os.environ, "CODEX_HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / ".cache")}
    with open(source if answers else os.devnull) as stdin:
        argv = [*SHELLGATE, "run", "--approval-policy", "untrusted", "--", "touch", "a"]
        r = subprocess.run(argv, cwd=workspace, env=env, stdin=stdin, capture_output=True,
                           text=True, timeout=60)  # fmt: skip
    assert "Traceback" not in r.stderr, r.stderr
    if answers:
        assert r.returncode == 0 and (workspace / "a").exists(), r.stderr
    else:
        assert r.returncode == 122 and not (workspace / "a").exists(), r.stderr


def test_bad_rules_run_nothing(workspace: Path, tmp_path: Path) -> None:
    rules = tmp_path / "bad.rules"
    rules.write_text('prefix_rule(pattern=["ls"], decision="maybe")\n')
    r = sg(workspace, tmp_path, "--rules", str(rules), "--", "touch", "b")
    assert r.returncode == 120
    assert f"{rules}:1:" in r.stderr and "Traceback" not in r.stderr
    assert not (workspace / "b").exists()


@pytest.mark.parametrize("argv", [[""], ["", "ls"]], ids=["empty", "empty-program"])
def test_an_empty_program_is_a_usage_error(workspace: Path, tmp_path: Path,
                                           argv: list[str]) -> None:  # fmt: skip
    r = sg(workspace, tmp_path, "--", *argv)
    assert r.returncode == 2 and "Permission denied" not in r.stderr, r.stderr
    assert "the command after `--` has no program (its first word is '')" in r.stderr


def test_a_missing_project_folder_runs_nothing(workspace: Path, tmp_path: Path) -> None:
    # A mistyped --project would otherwise drop that project's rules, forbidden ones too.
    r = sg(workspace, tmp_path, "--project", str(tmp_path / "no-such"), "--", "touch", "b")
    assert r.returncode == 2
    assert "--project: no such directory" in r.stderr
    assert not (workspace / "b").exists()


def test_json_events_and_amendment(probe: SandboxProbe, workspace: Path, tmp_path: Path) -> None:
    r = sg(workspace, tmp_path, "--approval-policy", "untrusted", "--json-events", "--",
           "touch", "made", answers="p\n")  # fmt: skip
    events = [json.loads(line) for line in r.stdout.splitlines()]
    names = [e["event"] for e in events]
    assert names == ["requirement", "approval_request", "approval_decision", "amendment",
                     "attempt", "result"]  # fmt: skip
    assert events[-1]["status"] == "completed" and events[-1]["exit_status"] == 0
    assert (workspace / "made").exists()
    assert (tmp_path / "rules" / "default.rules").read_text() == (
        'prefix_rule(pattern=["touch", "made"], decision="allow")\n'
    )
    # The amendment is a rule now: the next run is not asked and runs outside the sandbox.
    r = sg(workspace, tmp_path, "--approval-policy", "untrusted", "--json-events", "--",
           "touch", "made")  # fmt: skip
    events = [json.loads(line) for line in r.stdout.splitlines()]
    assert "approval_request" not in [e["event"] for e in events]
    assert events[-1]["attempts"][0]["sandboxed"] is False


def test_shell_script_and_sandbox_denial(
    probe: SandboxProbe, workspace: Path, tmp_path: Path, outside: Path
) -> None:
    r = sg(workspace, tmp_path, "--shell", f"echo x > {outside}/o")
    assert r.returncode != 0 and "Read-only file system" in r.stderr
    assert "the sandbox denied it" in r.stderr and not (outside / "o").exists()


def test_terminal_keys_on_a_real_pty(probe: SandboxProbe, workspace: Path, tmp_path: Path) -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: shellgate on the pty
        os.chdir(workspace)
        os.environ["CODEX_HOME"] = str(tmp_path)
        os.execv(
            sys.executable,
            [
                *SHELLGATE,
                "run",
                "--approval-policy",
                "untrusted",
                "--",
                "sh",
                "-c",
                ": '\x1b]0;evil\x07'; touch keyed",
            ],
        )
    seen = b""
    deadline = time.monotonic() + 30
    while b"Press a key" not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.5)[0]:
            seen += os.read(fd, 4096)
    assert b"Press a key" in seen, seen
    assert b"\\x1b]0;evil\\x07" in seen  # shown escaped, not interpreted
    assert b"\x1b]0;evil" not in seen.split(b"Press a key")[0]
    os.write(fd, b"\x1b[A")  # an arrow key is not Esc: ignored
    time.sleep(0.5)
    os.write(fd, b"y")  # one key, no Enter
    while time.monotonic() < deadline:
        try:
            if select.select([fd], [], [], 0.5)[0] and not os.read(fd, 4096):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert (workspace / "keyed").exists()


@pytest.mark.parametrize("key", ["\x1b", "n"])
def test_escape_and_n_abort(probe: SandboxProbe, workspace: Path, tmp_path: Path, key: str) -> None:
    r = sg(workspace, tmp_path, "--approval-policy", "untrusted", "--", "touch", "z",
           answers=key + "\n")  # fmt: skip
    assert r.returncode == 123 and not (workspace / "z").exists()
