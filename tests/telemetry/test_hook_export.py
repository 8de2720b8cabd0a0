"""Real `shellgate hook` processes with Codex's `[otel]` on: the hook answers, its detached
sender delivers to a real OTLP receiver; a collector that is down, answers 500 or is slow
neither delays the answer nor loses the event (spooled, then sent by `shellgate log drain` or
the language server's loop), and the spool's bound drops the oldest, counted."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from receiver import Receiver
from shapes import shape

from shellgate.lsp import telemetry
from shellgate.record import spool

CODEX = json.loads((Path(__file__).parent / "codex_shapes.json").read_text())
RULES = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm here")\n' \
        'prefix_rule(pattern=["git", "status"], decision="allow")\n'  # fmt: skip


class Setup:
    def __init__(self, root: Path, port: int, protocol: str = "json") -> None:
        self.root, self.ws, self.codex = root, root / "ws", root / "codex"
        self.state = root / "state"
        (self.codex / "rules").mkdir(parents=True)
        self.ws.mkdir()
        (self.codex / "rules" / "default.rules").write_text(RULES)
        url = f"http://127.0.0.1:{port}/v1"
        (self.codex / "config.toml").write_text(
            "[otel]\n"
            f'exporter = {{ otlp-http = {{ endpoint = "{url}/logs", protocol = "{protocol}" }} }}\n'
            f'metrics_exporter = {{ otlp-http = {{ endpoint = "{url}/metrics", '
            f'protocol = "{protocol}" }} }}\n')  # fmt: skip

    def env(self, **extra: str) -> dict[str, str]:
        return {"PATH": os.environ["PATH"], "HOME": str(self.root), "CODEX_HOME": str(self.codex),
                "XDG_STATE_HOME": str(self.state), "XDG_RUNTIME_DIR": str(self.root),
                "SHELLGATE_OTEL_TIMEOUT": "1", **extra}  # fmt: skip

    def hook(self, agent: str, event: dict[str, object],
             **extra: str) -> tuple[dict[str, object], float]:  # fmt: skip
        body = {"cwd": str(self.ws), "session_id": "s-1", **event}
        done = subprocess.run([sys.executable, "-I", "-m", "shellgate", "hook", agent],
                              input=json.dumps(body), env=self.env(**extra), cwd=self.ws,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return (json.loads(done.stdout) if done.stdout.strip() else {}), time.time()

    def drain(self, **extra: str) -> str:
        wait_for(lambda: not spool.draining(self.spool))  # the hooks' own sender gave up
        done = subprocess.run([sys.executable, "-m", "shellgate", "log", "drain"],
                              env=self.env(**extra), capture_output=True, text=True,
                              timeout=60)  # fmt: skip
        return done.stdout

    @property
    def spool(self) -> str:
        return spool.folder_of(str(self.state / "shellgate"))


def bash(command: str) -> dict[str, object]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}}  # fmt: skip


def wait_for(check: object, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not delivered in time"
        time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def logs(r: Receiver) -> list[dict[str, object]]:
    return [row for row in r.rows() if row["signal"] == "log"]


def test_a_hook_exports_through_its_detached_sender(tmp_path: Path, receiver: Receiver) -> None:
    s = Setup(tmp_path, receiver.port)
    answer, _ = s.hook("claude-code", bash("rm -rf build"))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    wait_for(lambda: logs(receiver))  # nobody drained: the hook's own sender did
    assert shape(receiver.rows()) == CODEX["o171-exec-forbidden-rule"]
    a = logs(receiver)[0]["attrs"]
    assert a["originator"] == ("string", "claude-code")
    assert a["shellgate.rule.pattern"] == ("string", "rm")
    assert a["shellgate.rule.file"] == ("string", str(s.codex / "rules" / "default.rules"))
    assert a["shellgate.rule.line"] == ("int", 1)
    assert a["shellgate.rule.layer"] == ("string", "user")
    assert a["conversation.id"] == ("string", "s-1")
    wait_for(lambda: not spool.pending(s.spool))


def test_collector_down_then_back(tmp_path: Path) -> None:
    port = free_port()  # nobody listens there yet
    s = Setup(tmp_path, port, "binary")
    answer, _ = s.hook("gemini", {"hook_event_name": "BeforeTool",
                                  "tool_name": "run_shell_command",
                                  "tool_input": {"command": "git status"}})  # fmt: skip
    assert answer["decision"] == "allow"
    wait_for(lambda: not spool.draining(s.spool) and spool.backing_off(s.spool))  # it tried
    assert len(spool.pending(s.spool)) == 1  # kept on disk
    s.hook("gemini", {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                      "tool_input": {"command": "rm x"}})  # fmt: skip
    assert len(spool.pending(s.spool)) == 2  # backing off: this hook started no sender
    r = Receiver(port)  # the collector is back
    try:
        out = s.drain()
        assert "sent 2, waiting 0, dropped 0" in out, out
        names = sorted(str(row["name"]) for row in logs(r))
        assert names == ["codex.tool_decision", "codex.tool_result", "codex.tool_result"]
        assert all(row["content_type"] == "application/x-protobuf" for row in logs(r))
    finally:
        r.close()


def test_a_500_keeps_the_events_until_the_language_server_sends_them(
        tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    receiver.status = 500
    s = Setup(tmp_path, receiver.port)
    s.hook("claude-code", bash("git status"))
    wait_for(lambda: not spool.draining(s.spool) and spool.backing_off(s.spool))
    assert len(spool.pending(s.spool)) == 1 and not receiver.rows()
    receiver.status = 200
    for key, value in s.env().items():
        monkeypatch.setenv(key, value)
    (Path(s.spool) / "retry-after").unlink()  # the 30 s back-off is over

    async def serve_a_while() -> None:
        telemetry.start(every=0.2)  # the language server's loop, as `initialized` starts it
        for _ in range(150):
            await asyncio.sleep(0.1)
            if not spool.pending(s.spool):
                return

    asyncio.run(serve_a_while())
    assert not spool.pending(s.spool)
    assert sorted(str(r["name"]) for r in logs(receiver)) == ["codex.tool_decision",
                                                               "codex.tool_result"]  # fmt: skip


def test_a_slow_collector_does_not_hold_the_answer(tmp_path: Path, receiver: Receiver) -> None:
    receiver.delay = 3.0
    s = Setup(tmp_path, receiver.port)
    _, answered = s.hook("claude-code", bash("git status"), SHELLGATE_OTEL_TIMEOUT="20")
    wait_for(lambda: logs(receiver), timeout=40)
    # the collector took the events after the hook had answered and exited
    assert receiver.arrived[0] > answered  # type: ignore[attr-defined]


def test_the_spool_is_bounded_and_counts_what_it_dropped(tmp_path: Path) -> None:
    port = free_port()
    s = Setup(tmp_path, port)
    for i in range(7):
        s.hook("claude-code", bash(f"rm f{i}"), SHELLGATE_OTEL_SPOOL_MAX="4")
    # a writer looks at the bound now and then, a sender every time
    assert 4 <= len(spool.pending(s.spool)) <= 7
    wait_for(lambda: not spool.draining(s.spool) and spool.backing_off(s.spool))
    r = Receiver(port)
    try:
        assert "sent 4, waiting 0, dropped 3" in s.drain(SHELLGATE_OTEL_SPOOL_MAX="4")
        rows = logs(r)
        assert sorted(str(row["attrs"]["shellgate.reason"][1]) for row in rows)[0].startswith(
            "ShellGate")  # fmt: skip
        assert {row["attrs"]["shellgate.dropped"] for row in rows} == {("int", 3)}
        commands = sorted(json.loads(str(row["attrs"]["arguments"][1]))["command"] for row in rows)
        assert commands == ["rm f3", "rm f4", "rm f5", "rm f6"]  # the oldest went
    finally:
        r.close()


def test_codex_pre_tool_use_deny_is_a_blocking_hook(tmp_path: Path, receiver: Receiver) -> None:
    """ShellGate as Codex's PreToolUse hook refusing what bash would run behind a wrapper:
    Codex's "blocked by a PreToolUse hook": no decision, no result, hooks.run blocked."""
    s = Setup(tmp_path, receiver.port)
    answer, _ = s.hook("codex", {**bash("timeout 5 rm -rf build"), "tool_use_id": "call_1"})
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    wait_for(lambda: receiver.rows())
    assert shape(receiver.rows()) == CODEX["o171-exec-pre-hook-deny"]
    listed = subprocess.run([sys.executable, "-m", "shellgate", "log", "--json"], env=s.env(),
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    entry = json.loads(listed.stdout.splitlines()[-1])
    assert (entry["agent"], entry["decision"], entry["answerer"], entry["hook_event"]) == (
        "codex", "forbidden", "hook", "PreToolUse")
    assert entry["call_id"] == "call_1"


def test_codex_permission_request_refused_by_shellgate(tmp_path: Path, receiver: Receiver) -> None:
    """Codex asks its PermissionRequest hook about a command ShellGate's rules forbid: a hook's
    deny, as Codex exports its own (denied / Config, a result, hooks.run blocked)."""
    s = Setup(tmp_path, receiver.port)
    event = {**bash("rm -rf build"), "hook_event_name": "PermissionRequest"}
    answer, _ = s.hook("codex", event)
    assert answer["hookSpecificOutput"]["decision"]["behavior"] == "deny"  # type: ignore[index]
    wait_for(lambda: len(receiver.rows()) >= 3)
    assert shape(receiver.rows()) == CODEX["o171-app-perm-hook-deny"]


def test_a_vs_code_task_refused_by_rule_is_recorded(tmp_path: Path, receiver: Receiver) -> None:
    s = Setup(tmp_path, receiver.port)
    event = {"hook_event_name": "PreToolUse", "tool_name": "run_task", "tool_use_id": "t1",
             "tool_input": {"id": "shell: build"}}  # fmt: skip
    answer, _ = s.hook("copilot", event)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    wait_for(lambda: logs(receiver))
    assert shape(receiver.rows()) == CODEX["o171-exec-forbidden-rule"]
    listed = subprocess.run([sys.executable, "-m", "shellgate", "log", "--json", "--agent",
                             "vscode-agent"], env=s.env(), capture_output=True, text=True,
                            timeout=60)  # fmt: skip
    entry = json.loads(listed.stdout)
    assert (entry["decision"], entry["tool"], entry["call_id"]) == ("forbidden", "run_task", "t1")


def test_the_sender_holds_none_of_the_agents_pipes(tmp_path: Path) -> None:
    """An agent reading the hook's output until EOF is not kept waiting by the detached
    sender: a pipe the agent passed (here an extra inheritable one) reaches EOF while the sender
    still runs (it holds the spool's lock, trying a collector that is down)."""
    s = Setup(tmp_path, free_port())
    r, w = os.pipe()
    os.set_inheritable(w, True)
    event = {**bash("ls"), "cwd": str(s.ws)}
    proc = subprocess.Popen([sys.executable, "-I", "-m", "shellgate", "hook", "claude-code"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=s.ws,
                            env=s.env(SHELLGATE_OTEL_TIMEOUT="8"), pass_fds=(w,))  # fmt: skip
    out, _ = proc.communicate(json.dumps(event).encode(), timeout=60)
    os.close(w)
    assert b"permissionDecision" in out
    assert os.read(r, 1) == b""  # EOF: nobody else holds the pipe
    os.close(r)
    wait_for(lambda: spool.draining(s.spool))  # and yet the sender is at work
