"""Rules engine speed: in-process evaluation at 10 / 1 000 / 10 000 / 100 000 rules (median µs
per `Policy.check`), and loading + validating a 10 000-rule file (median ms).

    .venv/bin/python benchmarks/bench_rules.py [--quick]

Targets (issue 2): evaluation median <= 5 µs at 10 000 rules and within 2x from 10 to 100 000;
load + validate of 10 000 rules <= 150 ms.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from shellgate.rules.decision import Decision
from shellgate.rules.loader import load_policy
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule

DECISIONS = [Decision.ALLOW, Decision.PROMPT, Decision.FORBIDDEN]
SUBS = ["status", "log", "push", "build", "test", "run", "install", "list"]


def generated_rules(n: int, seed: int = 1) -> list[PrefixRule]:
    """n rules over n/4 programs (four rules per program, some with alternatives)."""
    rnd = random.Random(seed)
    programs = max(1, n // 4)
    rules = []
    for i in range(n):
        prog = f"tool{i % programs}"
        rest: tuple[tuple[str, ...], ...] = ()
        if i % 4:
            rest = ((rnd.choice(SUBS),),) if i % 4 != 3 else (tuple(rnd.sample(SUBS, 2)), ("-x",))
        rules.append(PrefixRule(prog, rest, DECISIONS[i % 3]))
    return rules


def rules_text(n: int) -> str:
    lines = []
    for r in generated_rules(n):
        toks = [f'"{r.first}"'] + [
            f'"{a[0]}"' if len(a) == 1 else "[" + ", ".join(f'"{x}"' for x in a) + "]"
            for a in r.rest
        ]
        lines.append(f'prefix_rule(pattern=[{", ".join(toks)}], decision="{r.decision.value}")\n')
    return "".join(lines)


def bench_check(sizes: tuple[int, ...], rounds: int) -> dict[int, float]:
    """Median µs per check for each policy size. The sizes take turns within every round, so
    a burst of load on this shared machine lands on all of them alike, not on one."""
    rnd = random.Random(7)
    work = {}
    for n in sizes:
        programs = max(1, n // 4)
        cmds = [
            [f"tool{rnd.randrange(programs)}", rnd.choice(SUBS), "-x", "arg"] for _ in range(200)
        ] + [["unknown-program", "x"]] * 20
        work[n] = (Policy(generated_rules(n)).check, cmds)
    samples: dict[int, list[int]] = {n: [] for n in sizes}
    for _ in range(rounds):
        for n, (check, cmds) in work.items():
            for cmd in cmds:
                t = time.perf_counter_ns()
                check(cmd)
                samples[n].append(time.perf_counter_ns() - t)
    return {n: statistics.median(samples[n]) / 1000 for n in sizes}


def bench_load(n: int, rounds: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds (CPU time is the steadier figure on a busy machine)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.rules"
        path.write_text(rules_text(n))
        walls, cpus = [], []
        for _ in range(rounds):
            t, c = time.perf_counter(), time.process_time()
            policy = load_policy([path])
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            assert len(policy.rules) == n
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def main() -> int:
    quick = "--quick" in sys.argv
    print("in-process evaluation (Policy.check, median per command):")
    figures = bench_check((10, 1_000, 10_000, 100_000), 5 if quick else 50)
    for n, us in figures.items():
        print(f"  {n:>7} rules: {us:6.2f} us")
    spread = max(figures.values()) / min(figures.values())
    print(f"  10 -> 100000 rules spread: {spread:.2f}x (target <= 2x)")
    print(f"  10000 rules: {'OK' if figures[10_000] <= 5 else 'OVER'} (target <= 5 us)")
    wall, cpu = bench_load(10_000, 3 if quick else 7)
    verdict = "OK" if wall <= 150 else "OVER"
    print(
        f"load + validate a 10000-rule file (load_policy, median): {wall:.0f} ms wall, "
        f"{cpu:.0f} ms CPU ({verdict}; target <= 150 ms)"
    )
    print(f"machine load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
