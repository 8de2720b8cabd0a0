"""`shellgate mcp`: the `shell` tool's overhead over the orchestrator, and start-up, side by side.

1. The same allowed command (`true`, sandboxed by the heuristics under on-request) timed through
   the real `shellgate mcp` process (the MCP SDK's client over stdio: JSON-RPC, argument checks,
   the rules read from disk, the orchestrator, the sandbox) and through `Orchestrator.run` in
   this process; runs interleaved, median of the paired differences (target <= 5 ms p50).
2. Spawning `python -m shellgate mcp` until its `initialize` answer arrives (target <= 400 ms),
   and until its `tools/list` answer arrives (what a client waits for before its model can call
   a tool), as Codex opens: `initialize`, then `notifications/initialized` and `tools/list`.
   Warm: the answer cache holds the SDK's answers to this opening, so they are sent before the
   SDK has loaded (each run checks, with SHELLGATE_MCP_DEBUG, that both were); cold: an empty
   cache (a fresh XDG_CACHE_HOME), so the SDK answers once it has loaded. Medians.

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
LIST = [{"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]  # fmt: skip


def start_once(ws: str, home: str, cache: str) -> tuple[float, float, list[str]]:
    """(ms to `initialize` answered, ms to `tools/list` answered, the methods answered early)."""
    env = {**os.environ, "XDG_CACHE_HOME": cache, "SHELLGATE_MCP_DEBUG": "1"}
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "shellgate", "mcp", "--workspace", ws, "--codex-home", home],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(INIT) + "\n").encode())
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        init_ms = (time.perf_counter() - t) * 1000
        assert answer["id"] == 1 and "result" in answer, answer
        proc.stdin.write(b"".join((json.dumps(m) + "\n").encode() for m in LIST))
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        list_ms = (time.perf_counter() - t) * 1000
        assert answer["id"] == 2 and len(answer["result"]["tools"]) == 2, answer
        proc.stdin.close()
        proc.wait(30)
        err.seek(0)
        log = err.read().decode()
    assert "differed" not in log, log
    early = [line.split()[3] for line in log.splitlines() if line.endswith("early, from the cache")]
    return init_ms, list_ms, early


def starts(ws: str, home: str, tmp: str, runs: int, *, warm: bool) -> tuple[list[float], ...]:
    cache = os.path.join(tmp, "cache-warm")
    if warm:
        start_once(ws, home, cache)  # fills the cache
    inits, lists = [], []
    for i in range(runs):
        init_ms, list_ms, early = start_once(
            ws, home, cache if warm else os.path.join(tmp, f"cache-cold-{i}"))
        assert early == (["initialize", "tools/list"] if warm else []), early
        inits.append(init_ms)
        lists.append(list_ms)
    return inits, lists


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
        runs = max(5, n // 3)
        figures = {"warm": starts(ws, home, tmp, runs, warm=True),
                   "cold": starts(ws, home, tmp, max(3, runs // 2), warm=False)}  # fmt: skip
        for cache, (inits, lists) in figures.items():
            init, tools = statistics.median(inits), statistics.median(lists)
            ok = "ok" if init <= START_TARGET_MS else "MISSED"
            target = f"target <= {START_TARGET_MS:.0f} ms: {ok}" if cache == "warm" else "no target"
            print(f"start to initialize answered, {cache} cache, median of {len(inits)}: "
                  f"{init:.0f} ms (min {min(inits):.0f}; {target}); to tools/list answered "
                  f"{tools:.0f} ms (min {min(lists):.0f})")  # fmt: skip
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
