"""Whole-process `shellgate lint` of a large rules file, next to `shellgate check` of it (issue 28).

Generates a file of N prefix_rule calls (`bench_check_process.generated_rules`: 1 000 programs,
alternatives, the three decisions, examples on every tenth) and runs, alternating, `shellgate
check` (an empty compiled-policy cache each run, so it evaluates the file) and `shellgate lint`
in text and JSON. Prints the median CPU time (user + system, of the child: steadier than the wall
clock on a loaded machine) and wall time of each, and lint / check. Target: lint within 3x check
at 100 000 rules. Also checks that text-mode lint printed its summary.

    .venv/bin/python benchmarks/bench_lint.py [--rules 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_check_process import generated_rules

ROOT = Path(__file__).resolve().parent.parent
SHELLGATE = ROOT / ".venv" / "bin" / "shellgate"
TARGET = 3.0


def timed(
    argv: list[str], env: dict[str, str]
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.rules"
        path.write_text(generated_rules(args.rules))
        env = dict(os.environ, HOME=tmp)
        runs = {
            "check": [str(SHELLGATE), "check", "--rules", str(path), "--", "tool5", "sub5", "b5"],
            "lint (text)": [str(SHELLGATE), "lint", str(path)],
            "lint (json)": [str(SHELLGATE), "lint", "--format", "json", str(path)],
        }
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        summary = ""
        for i in range(args.runs):
            for name, argv in runs.items():
                cache = Path(tmp) / f"cache-{i}-{name[:5]}"
                cpu, wall, proc = timed(argv, dict(env, XDG_CACHE_HOME=str(cache)))
                if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
                    print(f"{name} failed (rc {proc.returncode}):\n{proc.stderr[-2000:]}")
                    return 1
                if name == "lint (text)":
                    summary = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
                figures[name].append((cpu, wall))
        print(f"{args.rules} rules ({path.stat().st_size // 1024} KiB), {args.runs} runs, "
              f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
        medians = {}
        for name, pairs in figures.items():
            cpu = statistics.median(c for c, _ in pairs)
            wall = statistics.median(w for _, w in pairs)
            medians[name] = cpu
            print(f"  {name:12} cpu {cpu:6.2f} s   wall {wall:6.2f} s")
        ratio = medians["lint (text)"] / medians["check"]
        verdict = "ok" if ratio <= TARGET else f"MISSED (target <= {TARGET})"
        print(f"  lint / check (cpu): {ratio:.2f}  {verdict}")
        print(f"  text-mode summary: {summary or 'NONE PRINTED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
