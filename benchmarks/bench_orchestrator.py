"""Orchestrator overhead for an allowed command, beyond the sandbox (target <= 2 ms).

Two allowed commands, each timed through `Orchestrator.run` and through the bare attempt
runner it calls, median of N; the difference is what the orchestrator adds (requirement,
session key, sandbox spec, events):
  - `true` allowed by a rule: runs outside the sandbox (bypass), no question;
  - `true` allowed by the heuristics under on-request: runs in the sandbox, no question.

    .venv/bin/python benchmarks/bench_orchestrator.py [N]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable

from shellgate.approval.context import ON_REQUEST, ExecContext, SandboxMode
from shellgate.approval.question import AutomaticApprover
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import probe_sandbox
from shellgate.exec.results import ExecRequest
from shellgate.exec.runner import run_attempt
from shellgate.exec.sandbox import FsAccess, NetworkAccess, build_spec
from shellgate.exec.sandbox import default_runtime_dir as runtime_dir
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy


def paired(
    loop: asyncio.AbstractEventLoop,
    a: Callable[[], Awaitable[object]],
    b: Callable[[], Awaitable[object]],
    n: int,
) -> tuple[float, float, float]:
    """Medians of a, of b and of the paired differences a - b, runs interleaved (the machine's
    load drifts; interleaving keeps it out of the difference)."""
    for _ in range(3):
        loop.run_until_complete(a())
        loop.run_until_complete(b())
    xa, xb = [], []
    for _ in range(n):
        t = time.perf_counter()
        loop.run_until_complete(a())
        xa.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        loop.run_until_complete(b())
        xb.append((time.perf_counter() - t) * 1000)
    diff = statistics.median(x - y for x, y in zip(xa, xb, strict=True))
    return statistics.median(xa), statistics.median(xb), diff


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    probe = probe_sandbox()
    ws = tempfile.mkdtemp(prefix="bench-orch-", dir="/var/tmp")
    subprocess.run(["git", "init", "-q", ws], check=True)
    true = shutil.which("true") or "/bin/true"
    loop = asyncio.new_event_loop()
    print(f"N={n}, load average {os.getloadavg()[0]:.2f}")

    policy = Policy()
    policy.add_prefix_rule([true], Decision.ALLOW)
    home = tempfile.mkdtemp(prefix="bench-home-")
    ruled = Orchestrator(policy, AutomaticApprover(), ExecContext(ON_REQUEST),
                         codex_home=home, probe=probe, network=NetworkAccess.OFF)  # fmt: skip
    req = ExecRequest((true,), ws)
    full, bare, diff = paired(
        loop, lambda: ruled.run(req), lambda: run_attempt([true], cwd=ws, spec=None), n
    )
    print(f"  allowed by a rule (no sandbox):    orchestrator {full:6.2f} ms, "
          f"runner {bare:6.2f} ms => overhead {diff:5.2f} ms (target <= 2 ms)")  # fmt: skip

    if probe.ok:
        heur = Orchestrator(Policy(), AutomaticApprover(),
                            ExecContext(ON_REQUEST, SandboxMode.WORKSPACE_WRITE),
                            codex_home=home, probe=probe, network=NetworkAccess.OFF)  # fmt: skip

        def sandboxed() -> Awaitable[object]:
            spec = build_spec(FsAccess.WORKSPACE_WRITE, ws, runtime_dir=runtime_dir())
            return run_attempt([true], cwd=ws, spec=spec, probe=probe)

        full_s, bare_s, diff_s = paired(loop, lambda: heur.run(req), sandboxed, n)
        print(f"  allowed by heuristics (sandboxed): orchestrator {full_s:6.2f} ms, "
              f"runner {bare_s:6.2f} ms => overhead {diff_s:5.2f} ms (target <= 2 ms)")  # fmt: skip
    else:
        print(f"  no sandbox here ({probe.reason}): sandboxed case skipped")
    loop.close()
    shutil.rmtree(ws, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
