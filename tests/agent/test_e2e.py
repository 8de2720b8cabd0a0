"""End to end: stand-in model -> loop -> real orchestrator -> real rules (Starlark) -> approver
-> real bubblewrap sandbox -> real files. Nothing here is scripted but the model and the person.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from shellgate.agent.chat import ChatClient
from shellgate.agent.config import AgentConfig
from shellgate.agent.loop import REJECTED_BY_USER, AgentSession, TurnStatus
from shellgate.agent.orchestrated import OrchestratedRunner
from shellgate.agent.standin import StandIn
from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import AutomaticApprover
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import probe_sandbox
from shellgate.rules.loader import load_policy

RULES = '''\
prefix_rule(pattern=["rm"], decision="forbidden", justification="use `trash` instead of rm")
prefix_rule(pattern=["touch"], decision="prompt", justification="creating files needs a look")
'''


@pytest.fixture(scope="module")
def probe():
    p = probe_sandbox()
    if not p.ok:
        pytest.skip(f"no working sandbox on this machine: {p.reason}")
    return p


def call(command: str, **extra: object) -> dict:
    return {"tool_calls": [{"name": "shell_command", "arguments": {"command": command, **extra}}]}


async def run_session(tmp_path: Path, probe, script, *, answers=None, policy="on-request",
                      sandbox="workspace-write"):
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    rules = tmp_path / "agent.rules"
    rules.write_text(RULES)
    approver = AutomaticApprover(script=(lambda req: answers.pop(0)) if answers else None)
    orchestrator = Orchestrator(
        policy=load_policy([str(rules)]), approver=approver, probe=probe,
        context=ExecContext(approval_policy=ApprovalPolicy.parse(policy),
                            sandbox=SandboxMode(sandbox)),
        codex_home=str(tmp_path / "codex-home"))
    standin = StandIn(script)
    standin.start()
    cfg = AgentConfig(model_url=standin.url, model="stand-in")
    client = ChatClient(cfg)
    events: list[tuple[str, dict]] = []
    session = AgentSession(client, OrchestratedRunner(orchestrator), cfg, str(ws),
                           lambda m, p: events.append((m, p)))
    try:
        result = await session.run_turn("tidy up")
    finally:
        await client.aclose()
        standin.stop()
    told = [m["content"] for m in standin.posts[-1]["messages"] if m["role"] == "tool"]
    return result, told, approver, ws, events


async def test_forbidden_refused_with_justification_and_prompt_approved(tmp_path, probe):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "build").mkdir()
    result, told, approver, ws, events = await run_session(
        tmp_path, probe,
        [call("rm -rf build"), call("touch made.txt", justification="make the file?"),
         {"text": "done"}],
        answers=["approved"])
    assert result.status is TurnStatus.COMPLETED
    assert (ws / "build").is_dir()  # forbidden: never ran
    assert told[0].startswith("`") and "rejected: use `trash` instead of rm" in told[0]
    assert (ws / "made.txt").is_file()  # approved: ran in the sandbox, on the real disk
    assert told[1].startswith("Exit code: 0")
    assert len(approver.asked) == 1  # only the prompt rule asked; the forbidden one never did
    asked = approver.asked[0]
    assert asked.command[-1] == "touch made.txt" and asked.command[1] == "-lc"
    assert "creating files needs a look" in (asked.reason or "")
    completed = [p["item"] for m, p in events if m == "item/completed"
                 and p["item"]["type"] == "commandExecution"]
    assert [c["outcome"] for c in completed] == ["forbidden", "ran"]


async def test_declined_is_not_run_and_the_model_is_told(tmp_path, probe):
    result, told, _, ws, _ = await run_session(
        tmp_path, probe, [call("touch no.txt"), {"text": "ok"}], answers=["denied"])
    assert result.status is TurnStatus.COMPLETED
    assert not (ws / "no.txt").exists()
    assert told == [REJECTED_BY_USER]


async def test_read_only_sandbox_really_blocks_writes(tmp_path, probe):
    result, told, approver, ws, _ = await run_session(
        tmp_path, probe, [call("echo hi > out.txt"), {"text": "ok"}], policy="never",
        sandbox="read-only")
    assert result.status is TurnStatus.COMPLETED and approver.asked == []
    assert not (ws / "out.txt").exists()
    assert not told[0].startswith("Exit code: 0") and "Read-only file system" in told[0]


async def test_cancel_kills_the_sandboxed_process(tmp_path, probe):
    marker = f"sg-agent-sleep-{time.monotonic_ns()}"
    ws = tmp_path / "ws"
    ws.mkdir()
    task = asyncio.ensure_future(run_session(
        tmp_path, probe, [call(f"exec -a {marker} sleep 30"), {"text": "never"}],
        policy="never"))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _pids_named(marker, running=True):
        await asyncio.sleep(0.02)
    assert _pids_named(marker, running=True), "the sandboxed command never started"
    t0 = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    while _pids_named(marker) and time.monotonic() - t0 < 2:
        await asyncio.sleep(0.01)
    assert not _pids_named(marker)
    assert time.monotonic() - t0 < 3.0  # a bound, not the figure (bench_agent.py)
    await asyncio.sleep(0.3)
    assert not _pids_named(marker)  # and nothing came back (bwrap, bash, the command)


def _pids_named(marker: str, *, running: bool = False) -> list[int]:
    """Live processes mentioning the marker; `running`: the command itself (argv[0])."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if (cmdline.startswith(marker.encode() + b"\0") if running
                    else marker.encode() in cmdline):
                pids.append(int(entry.name))
    return pids


async def test_escalation_request_carries_the_models_justification(tmp_path, probe):
    outside = tmp_path / "outside.txt"
    result, told, approver, _, _ = await run_session(
        tmp_path, probe,
        [call(f"touch {outside}", sandbox_permissions="require_escalated",
              justification="May I write outside the workspace?", prefix_rule=["touch"]),
         {"text": "ok"}],
        answers=["denied"])
    assert result.status is TurnStatus.COMPLETED
    assert not outside.exists() and told == [REJECTED_BY_USER]
    # A prompt rule matched, so its reason wins over the model's (Codex C.0 point 5).
    assert "creating files needs a look" in (approver.asked[0].reason or "")


async def test_never_refuses_escalation(tmp_path, probe):
    _, told, approver, _, _ = await run_session(
        tmp_path, probe,
        [call("pwd", sandbox_permissions="require_escalated", justification="please"),
         {"text": "ok"}], policy="never")
    assert approver.asked == []
    assert "you cannot ask for escalated permissions" in told[0]
