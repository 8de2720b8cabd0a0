"""Sandbox launch overhead: `true` under our full bwrap argv vs a plain spawn (median of N).

Prints three views: the bare launch (subprocess.run, as spec/sandbox.md §4 measured it), our
attempt runner (asyncio, status fd, seccomp pipe, placeholders) sandboxed vs not, and
`codex sandbox linux -- true` when the Codex binary is installed (benchmarks/realcodex.py finds
it). Target: bare overhead median <= 5 ms; ratio to Codex <= 0.3.

    .venv/bin/python benchmarks/bench_sandbox.py [N]
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from realcodex import codex_binaries, missing_message

from shellgate.exec import seccomp
from shellgate.exec.network import HostRules, NetworkProxy
from shellgate.exec.probe import probe_sandbox
from shellgate.exec.runner import run_attempt
from shellgate.exec.sandbox import FsAccess, NetworkAccess, build_spec, bwrap_argv
from shellgate.exec.sandbox import default_runtime_dir as runtime_dir


def timed(fn: Callable[[], object], n: int) -> list[float]:
    for _ in range(3):
        fn()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def paired(a: Callable[[], object], b: Callable[[], object], n: int) -> tuple[list[float], ...]:
    """Interleaved runs (the load drifts; interleaving keeps it out of the difference)."""
    xa: list[float] = []
    xb: list[float] = []
    for _ in range(3):
        a()
        b()
    for _ in range(n):
        t = time.perf_counter()
        a()
        xa.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        b()
        xb.append((time.perf_counter() - t) * 1000)
    return xa, xb, [x - y for x, y in zip(xa, xb, strict=True)]


def cpu_ms(fn: Callable[[], object], n: int) -> float:
    """Mean user+system CPU of the spawned processes (wall time on a loaded machine mostly
    measures the wait for a core)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(n):
        fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used * 1000 / n


def row(name: str, ms: list[float]) -> float:
    med = statistics.median(ms)
    p90 = sorted(ms)[int(len(ms) * 0.9) - 1]
    print(f"  {name:<52} median {med:7.2f} ms   p90 {p90:7.2f} ms")
    return med


def find_codex() -> str | None:
    """$CODEX_BIN, else the first pinned Codex scripts/install-agents.sh installed."""
    found = codex_binaries()
    return str(found[0][1]) if found else None


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    probe = probe_sandbox()
    if not probe.ok or probe.bwrap is None:
        print(f"no sandbox: {probe.reason}")
        return 1
    ws = tempfile.mkdtemp(prefix="bench-ws-", dir="/var/tmp")
    subprocess.run(["git", "init", "-q", ws], check=True)
    spec = build_spec(FsAccess.WORKSPACE_WRITE, ws, network=NetworkAccess.OFF)
    blob = seccomp.bpf_bytes(spec.socket_filter)
    true = shutil.which("true") or "/bin/true"

    def plain() -> None:
        subprocess.run([true], cwd=ws, check=True)

    def sandboxed() -> None:
        r, w = os.pipe()
        os.write(w, blob)
        os.close(w)
        try:
            argv = bwrap_argv(probe.bwrap or "", spec, [true], seccomp_fd=r)
            subprocess.run(argv, pass_fds=(r,), check=True)
        finally:
            os.close(r)

    print(
        f"bwrap {probe.bwrap}, workspace-write, network off, seccomp, N={n}, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print("bare launch (subprocess.run):")
    xs, xp, d = paired(sandboxed, plain, n)
    row("plain `true`", xp)
    s = row("bwrap full argv + seccomp `true`", xs)
    cpu_plain, cpu_sb = cpu_ms(plain, n), cpu_ms(sandboxed, n)
    print(f"  CPU time per launch (load-independent): plain {cpu_plain:.2f} ms, "
          f"sandboxed {cpu_sb:.2f} ms => {cpu_sb - cpu_plain:.2f} ms")  # fmt: skip
    print(
        f"  => sandbox launch overhead (median of paired differences): "
        f"{statistics.median(d):.2f} ms (target <= 5 ms)"
    )

    loop = asyncio.new_event_loop()
    print("attempt runner (what the orchestrator uses):")
    xs, xp, d = paired(
        lambda: loop.run_until_complete(run_attempt([true], cwd=ws, spec=spec, probe=probe)),
        lambda: loop.run_until_complete(run_attempt([true], cwd=ws, spec=None)), n)  # fmt: skip
    row("run_attempt, no sandbox", xp)
    row("run_attempt, sandboxed", xs)
    print(f"  => runner sandbox overhead: {statistics.median(d):.2f} ms")
    if shutil.which("socat"):
        proxy = NetworkProxy(HostRules(), runtime_dir())
        pspec = build_spec(FsAccess.WORKSPACE_WRITE, ws, network=NetworkAccess.PROXY)
        xs, xp, d = paired(
            lambda: loop.run_until_complete(
                run_attempt([true], cwd=ws, spec=pspec, probe=probe, proxy=proxy)),
            lambda: loop.run_until_complete(run_attempt([true], cwd=ws, spec=spec, probe=probe)),
            max(10, n // 2))  # fmt: skip
        row("run_attempt, sandboxed, network by host (socat bridge)", xs)
        print(f"  => cost of the per-host network bridge: {statistics.median(d):.2f} ms")
    loop.close()

    codex = find_codex()
    if codex:
        home = tempfile.mkdtemp(prefix="bench-codex-home-", dir="/var/tmp")  # not under /tmp
        cenv = {**os.environ, "CODEX_HOME": home}
        cargv = [codex, "sandbox", "-c", 'sandbox_mode="workspace-write"', "--", true]
        check = subprocess.run(cargv, cwd=ws, env=cenv, capture_output=True, text=True)
        if check.returncode != 0:
            print(
                f"codex sandbox failed here (rc={check.returncode}): {check.stderr.strip()[:200]}"
            )
        else:

            def codex_run() -> None:
                subprocess.run(cargv, cwd=ws, env=cenv, check=True, capture_output=True)

            xc, xs2, _ = paired(codex_run, sandboxed, max(10, n // 2))
            c = row("codex sandbox (workspace-write) `true`", xc)
            s = row("ours, same runs interleaved", xs2)
            print(f"  => ratio ours/codex (bare launch): {s / c:.3f} (target <= 0.3)")
        shutil.rmtree(home, ignore_errors=True)
    else:
        print(f"codex binary not found ({missing_message()}): no side-by-side figure")
    shutil.rmtree(ws, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
