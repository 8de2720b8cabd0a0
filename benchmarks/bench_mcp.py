"""`shellgate mcp`: the `shell` tool's overhead over the orchestrator, and start-up, side by side.

1. The same allowed command (`true`, sandboxed by the heuristics under on-request) timed through
   the real `shellgate mcp` process (the MCP SDK's client over stdio: JSON-RPC, argument checks,
   the rules read from disk, the orchestrator, the sandbox) and through `Orchestrator.run` in
   this process; runs interleaved, median of the paired differences (target <= 5 ms p50).
2. Spawning `python -m shellgate mcp` until its `initialize` answer arrives, median of N
   (target <= 400 ms).

    .venv/bin/python benchmarks/bench_mcp.py [N]
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from shellgate.approval.context import ExecContext, SandboxMode
from shellgate.exec.approver import AutomaticApprover
from shellgate.exec.orchestrator import ExecRequest, Orchestrator, Status
from shellgate.exec.probe import probe_sandbox
from shellgate.rules.layer_cache import load_layers_cached
from shellgate.rules.trust import codex_layers_for

OVERHEAD_TARGET_MS = 5.0
START_TARGET_MS = 400.0
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"}}}  # fmt: skip


def start_once(ws: str, home: str) -> float:
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellgate", "mcp", "--workspace", ws, "--codex-home", home],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    elapsed = (time.perf_counter() - t) * 1000
    assert answer["id"] == 1 and "result" in answer, answer
    proc.stdin.close()
    proc.wait(10)
    return elapsed


async def overhead(ws: str, home: str, n: int) -> tuple[float, float, float]:
    probe = probe_sandbox()
    if not probe.ok:
        raise SystemExit(f"no working sandbox: {probe.reason}")
    ctx = ExecContext(sandbox=SandboxMode.WORKSPACE_WRITE)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "shellgate", "mcp", "--workspace", ws,
                                      "--codex-home", home], cwd=ws)  # fmt: skip

    async def direct() -> None:
        layers, _ = codex_layers_for(Path(ws), codex_home=Path(home))
        orch = Orchestrator(load_layers_cached(layers), AutomaticApprover(), ctx,
                            codex_home=home, writable_roots=(ws,), probe=probe)  # fmt: skip
        result = await orch.run(ExecRequest(("true",), ws))
        assert result.status is Status.COMPLETED and result.exit_code == 0, result

    async with Client(params, mode="legacy") as client:
        async def via_mcp() -> None:
            r = await client.call_tool("shell", {"command": ["true"]})
            assert not r.is_error and r.content[0].text.startswith("Exit code: 0"), r

        for _ in range(3):
            await via_mcp()
            await direct()
        xa, xb = [], []
        for _ in range(n):
            t = time.perf_counter()
            await via_mcp()
            xa.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            await direct()
            xb.append((time.perf_counter() - t) * 1000)
    diffs = [a - b for a, b in zip(xa, xb, strict=True)]
    return statistics.median(xa), statistics.median(xb), statistics.median(diffs)


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with tempfile.TemporaryDirectory() as tmp:
        ws, home = os.path.join(tmp, "ws"), os.path.join(tmp, "home")
        os.makedirs(ws)
        os.makedirs(os.path.join(home, "rules"))
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        via, direct, diff = asyncio.run(overhead(ws, home, n))
        ok = "ok" if diff <= OVERHEAD_TARGET_MS else "MISSED"
        print(f"shell tool `true`, median of {n}: via shellgate mcp {via:.2f} ms, "
              f"orchestrator directly {direct:.2f} ms, overhead p50 {diff:.2f} ms "
              f"(target <= {OVERHEAD_TARGET_MS:.0f} ms: {ok})")  # fmt: skip
        starts = [start_once(ws, home) for _ in range(max(5, n // 3))]
        start = statistics.median(starts)
        ok = "ok" if start <= START_TARGET_MS else "MISSED"
        print(f"start to initialize answered, median of {len(starts)}: {start:.0f} ms "
              f"(min {min(starts):.0f}, target <= {START_TARGET_MS:.0f} ms: {ok})")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
