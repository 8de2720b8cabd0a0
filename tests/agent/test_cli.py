"""`shellgate agent` as a user runs it: a real process, the bundled stand-in, real rules, the
real sandbox, and answers typed on stdin to the terminal approver."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shellgate.agent.loop import TURN_ABORTED
from shellgate.exec.probe import probe_sandbox

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "agent"


@pytest.fixture(scope="module", autouse=True)
def _sandbox() -> None:
    p = probe_sandbox()
    if not p.ok:
        pytest.skip(f"no working sandbox on this machine: {p.reason}")


def agent(tmp_path: Path, *args: str, stdin: str = "", script: list | None = None,
          ) -> tuple[subprocess.CompletedProcess[str], Path]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    transcript = tmp_path / "transcript.jsonl"
    extra: list[str] = []
    if script is not None:
        (tmp_path / "script.json").write_text(json.dumps(script))
        extra = ["--standin", str(tmp_path / "script.json")]
    env = {**os.environ, "CODEX_HOME": str(tmp_path / "codex-home"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "shellgate", "agent", "--cwd", str(ws), "--transcript",
         str(transcript), *extra, *args],
        input=stdin, capture_output=True, text=True, timeout=120, env=env)
    return proc, transcript


def records(transcript: Path) -> list[dict]:
    return [json.loads(line) for line in transcript.read_text().splitlines()]


def test_the_demo_end_to_end(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "build").mkdir()
    (ws / "a.tmp").write_text("")
    proc, transcript = agent(tmp_path, "--standin", str(DEMO / "demo.json"), "--rules",
                             str(DEMO / "demo.rules"), "Tidy up this workspace", stdin="y\n")
    assert proc.returncode == 0, proc.stderr
    assert "$ find . -name '*.tmp'\n./a.tmp" in proc.stdout  # approved on the terminal, ran
    assert "requires approval: find can delete files" in proc.stderr
    assert "rejected: deleting is for people" in proc.stderr  # forbidden, never asked
    assert (ws / "build").is_dir()
    assert (ws / "NOTES.md").read_text() == "build/ is stale and can be deleted\n"
    assert "Read-only file system" in proc.stdout  # the sandbox blocked the outside write
    assert not Path("/usr/local/agent-was-here").exists()
    assert transcript.stat().st_mode & 0o777 == 0o600
    lines = records(transcript)
    methods = [r["method"] for r in lines]
    assert methods[0] == "thread/started" and methods[-1] == "turn/completed"
    assert lines[-1]["params"]["turn"]["status"] == "completed"
    commands = [r["params"]["item"] for r in lines if r["method"] == "item/completed"
                and r["params"]["item"]["type"] == "commandExecution"]
    assert [c["outcome"] for c in commands] == ["ran", "ran", "forbidden", "ran", "ran"]
    assert [r["params"]["decision"] for r in lines
            if r["method"] == "item/commandExecution/approval"] == ["accept"]
    assert sum(m == "model/request" for m in methods) == 6


def test_tell_the_agent_what_to_do_differently(tmp_path: Path) -> None:
    script = [{"tool": "<auto>", "command": "find . -name x"}, {"text": "fine, I will not"}]
    rules = tmp_path / "r.rules"
    rules.write_text('prefix_rule(pattern=["find"], decision="prompt")\n')
    proc, transcript = agent(tmp_path, "--rules", str(rules), "look for x",
                             stdin="n\nuse ls instead\n", script=script)
    assert proc.returncode == 0, proc.stderr
    assert "What should the agent do differently?" in proc.stderr
    requests = [r["params"] for r in records(transcript) if r["method"] == "model/request"]
    # The transcript logs each request's new items; together they rebuild the second body.
    sent = [m for r in requests for m in r["newItems"]]
    assert len(sent) == requests[1]["itemCount"] and requests[1]["itemsKey"] == "messages"
    users = [m["content"] for m in sent if m["role"] == "user"]
    assert users == ["look for x", TURN_ABORTED, "use ls instead"]
    tools = [m["content"] for m in sent if m["role"] == "tool"]
    assert tools == ["aborted by user"]


def test_untrusted_model_text_is_escaped(tmp_path: Path) -> None:
    evil = "all good\x1b[2J\x1b]0;pwned\x07 \u202eevil"
    proc, _ = agent(tmp_path, "hi", script=[{"text": evil}])
    assert proc.returncode == 0
    assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "all good\\x1b[2J\\x1b]0;pwned\\x07 \\u202eevil" in proc.stdout


def test_turn_limit_exit_status(tmp_path: Path) -> None:
    script = [{"tool": "<auto>", "command": "true"}] * 3
    proc, _ = agent(tmp_path, "--max-turns", "2", "--approval-policy", "never", "spin",
                    script=script)
    assert proc.returncode == 124
    assert "turn limit of 2 model calls" in proc.stderr


def test_model_server_errors_are_actionable(tmp_path: Path) -> None:
    proc, _ = agent(tmp_path, "--api-key-env", "MY_MODEL_KEY", "hi",
                    script=[{"status": 401, "body": "invalid api key"}])
    assert proc.returncode == 1
    assert "MY_MODEL_KEY" in proc.stderr and "invalid api key" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_nothing_listening(tmp_path: Path) -> None:
    proc, _ = agent(tmp_path, "--model-url", "http://127.0.0.1:9/v1", "hi")
    assert proc.returncode == 1
    assert "cannot reach the model server at http://127.0.0.1:9/v1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_rules_stop_before_anything_runs(tmp_path: Path) -> None:
    rules = tmp_path / "bad.rules"
    rules.write_text('prefix_rule(pattern=["rm"], decision="maybe")\n')
    proc, _ = agent(tmp_path, "--rules", str(rules), "hi", script=[{"text": "never"}])
    assert proc.returncode == 120
    assert f"{rules}:1:" in proc.stderr and "Traceback" not in proc.stderr


def test_bad_arguments(tmp_path: Path) -> None:
    proc, _ = agent(tmp_path, "--wire-api", "soap", "hi")
    assert proc.returncode == 2
    bad = tmp_path / "s.json"
    bad.write_text("[{]")
    proc, _ = agent(tmp_path, "--standin", str(bad), "hi")
    assert proc.returncode == 2 and f"{bad}:1:" in proc.stderr


def test_ctrl_c_stops_the_running_command(tmp_path: Path) -> None:
    marker = f"sg-cli-sleep-{time.monotonic_ns()}"
    (tmp_path / "ws").mkdir()
    (tmp_path / "s.json").write_text(json.dumps(
        [{"tool": "<auto>", "command": f"exec -a {marker} sleep 30"}, {"text": "never"}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellgate", "agent", "--standin", str(tmp_path / "s.json"),
         "--approval-policy", "never", "--cwd", str(tmp_path / "ws"), "--transcript",
         str(tmp_path / "t.jsonl"), "sleep"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "CODEX_HOME": str(tmp_path / "codex-home")},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 20
        while not _running(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _running(marker), "the command never started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "interrupted" in err
    assert not _running(marker, anywhere=True)
    last = records(tmp_path / "t.jsonl")[-1]
    assert last["method"] == "turn/completed"
    assert last["params"]["turn"]["status"] == "interrupted"


def _running(marker: str, *, anywhere: bool = False) -> bool:
    """The command itself (argv[0] is the marker) or, with `anywhere`, any process naming it."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if (marker.encode() in cmdline) if anywhere else \
                    cmdline.startswith(marker.encode() + b"\0"):
                return True
    return False


def test_the_usage_line_names_every_option() -> None:
    from shellgate.cli.agent import USAGE, _parser

    options = [a.option_strings[-1] for a in _parser()._actions if a.option_strings]
    missing = [o for o in options if o not in ("--help",) and o not in USAGE]
    assert not missing
    shown = subprocess.run([sys.executable, "-m", "shellgate", "agent", "--help"],
                           capture_output=True, text=True, timeout=30).stdout  # fmt: skip
    assert shown.startswith("usage: " + USAGE)
