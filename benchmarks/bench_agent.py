"""The embedded agent's speed targets (issue 7), measured against the stand-in model server.

1. ShellGate's own overhead per tool call, beyond the model and the command: <= 5 ms.
   A session whose model (the stand-in, over real HTTP) asks for N commands, one per answer,
   each refused by a real Starlark rule, so that no command runs: every millisecond outside
   the wait for the model is ShellGate's (argument parsing, the orchestrator's decision on real
   rules, history, events, the JSON-lines transcript, building each request). The wait for the
   model is measured around each HTTP call and subtracted. For context the same is run with
   commands the sandbox really runs (`true`), reporting the command time separately.
2. Cancel to stream closed and no process left: <= 200 ms.
   (a) the model stream stalls; cancel; time until the turn has ended and the stand-in has seen
   the connection close; (b) a sandboxed `sleep` runs; cancel; time until the turn has ended
   and no process of the command is left (scanning /proc).

Usage: .venv/bin/python benchmarks/bench_agent.py [--calls 200] [--cancels 15]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from shellgate.agent.chat import ChatClient
from shellgate.agent.config import AgentConfig
from shellgate.agent.events import Transcript
from shellgate.agent.loop import AgentSession, TurnStatus
from shellgate.agent.orchestrated import OrchestratedRunner
from shellgate.agent.standin import StandIn
from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import AutomaticApprover
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import probe_sandbox
from shellgate.rules.loader import load_policy

RULES = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="use trash")\n'


class TimedClient(ChatClient):
    """The real chat client, with the time spent waiting for the model recorded.

    Building the request (rendering the history, JSON) is ShellGate's work, not the model's:
    it is timed on a copy and taken out of the model's time (the copy itself is taken out of
    the total)."""

    model_seconds = 0.0
    copy_seconds = 0.0

    async def complete(self, history, system, tools, on_text):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        json.dumps(self.describe_request(history, system, tools))
        build = time.perf_counter() - t0
        self.copy_seconds += build
        t1 = time.perf_counter()
        try:
            return await super().complete(history, system, tools, on_text)
        finally:
            self.model_seconds += time.perf_counter() - t1 - build


def make_session(
    tmp: Path, script: list[dict], policy: str = "never", transcript: bool = True
) -> tuple[AgentSession, TimedClient, StandIn]:
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    rules = tmp / "bench.rules"
    rules.write_text(RULES)
    orchestrator = Orchestrator(
        policy=load_policy([str(rules)]),
        approver=AutomaticApprover(),
        context=ExecContext(
            approval_policy=ApprovalPolicy.parse(policy), sandbox=SandboxMode.WORKSPACE_WRITE
        ),
        codex_home=str(tmp / "codex-home"),
    )
    standin = StandIn(script)
    standin.start()
    config = AgentConfig(model_url=standin.url, model="stand-in", max_turns=len(script) + 1)
    client = TimedClient(config)
    sink = Transcript(tmp / "transcript.jsonl") if transcript else (lambda m, p: None)
    session = AgentSession(client, OrchestratedRunner(orchestrator), config, str(ws), sink)
    return session, client, standin


def call(command: str) -> dict:
    return {"tool_calls": [{"name": "shell_command", "arguments": {"command": command}}]}


async def overhead(calls: int, command: str) -> tuple[float, float, float]:
    """(ms per call outside the model, ms per call in commands, ms per call in the model)."""
    with tempfile.TemporaryDirectory() as d:
        script = [call(command)] * calls + [{"text": "done"}]
        session, client, standin = make_session(Path(d), script)
        command_seconds = 0.0
        runner = session.runner
        inner = runner.run

        async def timed_run(request, on_output):  # type: ignore[no-untyped-def]
            nonlocal command_seconds
            result = await inner(request, on_output)
            if result.outcome.value == "ran":  # the orchestrated, sandboxed run of a command
                command_seconds += result.duration_s
            return result

        runner.run = timed_run  # type: ignore[method-assign]
        t0 = time.perf_counter()
        result = await session.run_turn("go")
        total = time.perf_counter() - t0
        await client.aclose()
        standin.stop()
        assert result.status is TurnStatus.COMPLETED, result
    model = client.model_seconds
    own = total - model - command_seconds - client.copy_seconds
    return own / calls * 1000, command_seconds / calls * 1000, model / (calls + 1) * 1000


def _pids(marker: str, *, running: bool = False) -> list[int]:
    """Live processes whose command line mentions `marker` (bwrap, bash, the command), or with
    `running`, only the command itself (its argv[0] is the marker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            hit = (
                cmdline.startswith(marker.encode() + b"\0")
                if running
                else marker.encode() in cmdline
            )
            if hit:
                found.append(int(entry.name))
    return found


async def cancel_stream() -> float:
    with tempfile.TemporaryDirectory() as d:
        session, client, standin = make_session(
            Path(d), [{"text": "x", "stall_ms": 20000}], transcript=False
        )
        turn = asyncio.ensure_future(session.run_turn("wait"))
        while not standin.requests:
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)  # the stream is open and stalled
        t0 = time.time()
        session.cancel()
        result = await turn
        ended = time.time()
        while not standin.events:  # the server's own timestamp of the disconnect
            await asyncio.sleep(0.001)
        closed = standin.events[0]["t"]
        await client.aclose()
        standin.stop()
        assert result.status is TurnStatus.INTERRUPTED
    return (max(ended, closed) - t0) * 1000


async def cancel_process(n: int) -> float:
    marker = f"sg-bench-{n}-{time.monotonic_ns()}"
    with tempfile.TemporaryDirectory() as d:
        session, client, standin = make_session(
            Path(d), [call(f"exec -a {marker} sleep 30"), {"text": "never"}], transcript=False
        )
        turn = asyncio.ensure_future(session.run_turn("sleep"))
        while not _pids(marker, running=True):  # the command itself runs in the sandbox
            await asyncio.sleep(0.005)
        t0 = time.monotonic()
        session.cancel()
        result = await turn
        while _pids(marker):
            await asyncio.sleep(0.001)
        elapsed = time.monotonic() - t0
        await client.aclose()
        standin.stop()
        assert result.status is TurnStatus.INTERRUPTED
    return elapsed * 1000


def verdict(value: float, target: float) -> str:
    return "OK" if value <= target else "MISSED"


async def main_async(args: argparse.Namespace) -> int:
    probe = probe_sandbox()
    print(
        f"Python {sys.version.split()[0]}; sandbox: "
        f"{'bubblewrap ' + str(probe.bwrap) if probe.ok else 'unavailable: ' + probe.reason}"
    )
    await overhead(10, "rm -rf x")  # warm-up: imports, first connection
    own, _, model = await overhead(args.calls, "rm -rf x")
    print(
        f"overhead per tool call (forbidden by a rule, {args.calls} calls, one per model "
        f"answer): {own:.2f} ms [target <= 5 ms: {verdict(own, 5)}]; model HTTP "
        f"{model:.2f} ms per call"
    )
    if probe.ok:
        own_ran, command, _ = await overhead(max(args.calls // 4, 10), "true")
        print(
            f"overhead per tool call (`true` run in the sandbox): {own_ran:.2f} ms beyond "
            f"the orchestrated command's {command:.1f} ms (decision, sandbox launch, "
            "bash -lc)"
        )
    streams = [await cancel_stream() for _ in range(args.cancels)]
    print(
        f"cancel -> model stream closed (server saw the disconnect), {args.cancels} runs: "
        f"median {statistics.median(streams):.1f} ms, max {max(streams):.1f} ms "
        f"[target <= 200 ms: {verdict(max(streams), 200)}]"
    )
    if probe.ok:
        procs = [await cancel_process(i) for i in range(args.cancels)]
        print(
            f"cancel -> turn ended and no sandboxed process left, {args.cancels} runs: "
            f"median {statistics.median(procs):.1f} ms, max {max(procs):.1f} ms "
            f"[target <= 200 ms: {verdict(max(procs), 200)}]"
        )
    else:
        print("cancel -> no process left: skipped (no sandbox on this machine)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--cancels", type=int, default=15)
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
