"""`shellgate mcp`: the `shell` tool's overhead over the orchestrator, and start-up, side by side.

1. The same allowed command (`true`, sandboxed by the heuristics under on-request) timed through
   the real `shellgate mcp` process (the MCP SDK's client over stdio: JSON-RPC, argument checks,
   the rules read from disk, the orchestrator, the sandbox) and through `Orchestrator.run` in
   this process; runs interleaved, median of the paired differences (target <= 5 ms p50).
2. Spawning `python -m shellgate mcp` until its first answer arrives (`initialize`; target
   <= 400 ms) and until its `tools/list` answer arrives (what a client waits for before its model
   can call a tool), for two openings, each client waiting for an answer before its next batch:
   Codex's (protocol 2025-06-18: `initialize`; `notifications/initialized`, `tools/list`) and
   Claude Code's (2026-07-28: `server/discover`; `subscriptions/listen`, whose acknowledgement
   it awaits; `server/discover` and the three lists). Warm: the answer cache holds the SDK's
   answers to that opening, so they are sent before the SDK has loaded (each run checks, with
   SHELLGATE_MCP_DEBUG, that every one was); cold: an empty cache (a fresh XDG_CACHE_HOME), so
   the SDK answers once it has loaded. Medians.

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
from shellgate.approval.question import AutomaticApprover
from shellgate.codexconfig.layer_cache import load_layers_cached
from shellgate.codexconfig.resolve import codex_layers_for
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import probe_sandbox
from shellgate.exec.results import ExecRequest, Status

OVERHEAD_TARGET_MS = 5.0
START_TARGET_MS = 400.0
_M = "io.modelcontextprotocol/"
_ENVELOPE = {"_meta": {
    _M + "protocolVersion": "2026-07-28",
    _M + "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": "2.1.332"},
    _M + "clientCapabilities": {"roots": {"listChanged": True},
                                "elicitation": {"form": {}, "url": {}}}}}  # fmt: skip


def _rq(id_: object, method: str, params: object = None) -> dict[str, object]:
    msg: dict[str, object] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


# Batches: each is sent whole once the previous one is answered (as the real clients do).
OPENINGS = {
    "Codex (2025-06-18)": [
        [_rq(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {
            "elicitation": {"form": {}, "url": {}}}, "clientInfo": {
            "name": "codex-mcp-client", "title": "Codex", "version": "0.171.0"}})],
        [{"jsonrpc": "2.0", "method": "notifications/initialized"},
         _rq(1, "tools/list", {"_meta": {"progressToken": 0}})]],
    "Claude Code (2026-07-28)": [
        [_rq("server-discover-probe-1", "server/discover", _ENVELOPE)],
        [_rq("listen:0", "subscriptions/listen", {**_ENVELOPE, "notifications": {
            "toolsListChanged": True, "promptsListChanged": True,
            "resourcesListChanged": True}})],
        [_rq(0, "server/discover", _ENVELOPE), _rq(1, "prompts/list", _ENVELOPE),
         _rq(2, "resources/list", _ENVELOPE), _rq(3, "tools/list", _ENVELOPE)]],
}  # fmt: skip


def _answers(msg: dict[str, object]) -> str | None:
    if msg.get("method") == "notifications/subscriptions/acknowledged":
        return "ack:" + json.dumps(msg["params"]["_meta"][_M + "subscriptionId"])  # type: ignore[index]
    return json.dumps(msg["id"]) if "id" in msg and "method" not in msg else None


def start_once(ws: str, home: str, cache: str, opening: list[list[dict[str, object]]],
               ) -> tuple[float, float, int]:  # fmt: skip
    """(ms to the first batch answered, ms to `tools/list` answered, how many answered early)."""
    env = {**os.environ, "XDG_CACHE_HOME": cache, "SHELLGATE_MCP_DEBUG": "1"}
    marks = []
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "shellgate", "mcp", "--workspace", ws, "--codex-home", home],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        for batch in opening:
            proc.stdin.write(b"".join((json.dumps(m) + "\n").encode() for m in batch))
            proc.stdin.flush()
            wanted = {("ack:" if m["method"] == "subscriptions/listen" else "")
                      + json.dumps(m["id"]) for m in batch if "id" in m}  # fmt: skip
            while wanted:
                msg = json.loads(proc.stdout.readline())
                assert "error" not in msg, msg
                wanted.discard(_answers(msg))
            marks.append((time.perf_counter() - t) * 1000)
        assert "tools" in msg["result"] and len(msg["result"]["tools"]) == 2, msg
        proc.stdin.close()
        proc.wait(30)
        err.seek(0)
        log = err.read().decode()
    assert "differed" not in log and "ignoring" not in log, log
    return marks[0], marks[-1], sum(line.endswith("early, from the cache")
                                    for line in log.splitlines())  # fmt: skip


def starts(ws: str, home: str, tmp: str, opening: list[list[dict[str, object]]], runs: int, *,
           warm: bool) -> tuple[list[float], list[float]]:  # fmt: skip
    cache = tempfile.mkdtemp(dir=tmp)
    requests = sum("id" in m for batch in opening for m in batch)
    if warm:
        start_once(ws, home, cache, opening)  # fills the cache
    firsts, lists = [], []
    for _ in range(runs):
        first, listed, early = start_once(
            ws, home, cache if warm else tempfile.mkdtemp(dir=tmp), opening)
        assert early == (requests if warm else 0), (early, requests)
        firsts.append(first)
        lists.append(listed)
    return firsts, lists


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
        for name, opening in OPENINGS.items():
            for cache, count in (("warm", runs), ("cold", max(3, runs // 2))):
                firsts, lists = starts(ws, home, tmp, opening, count, warm=cache == "warm")
                first, tools = statistics.median(firsts), statistics.median(lists)
                ok = "ok" if first <= START_TARGET_MS else "MISSED"
                target = (f"target <= {START_TARGET_MS:.0f} ms: {ok}" if cache == "warm"
                          else "no target")  # fmt: skip
                print(f"{name}, {cache} cache, median of {count}: start to first answer "
                      f"{first:.0f} ms (min {min(firsts):.0f}; {target}), to tools/list "
                      f"answered {tools:.0f} ms (min {min(lists):.0f})")  # fmt: skip
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
