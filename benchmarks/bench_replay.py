"""Replay speed (issue 13).

Prints
  1. whole-process `shellgate replay` of a 100 000-line bash history (20 % of the lines
     distinct, the rest repeats, as histories are) against a generated 1 000-rule policy:
     median wall time of a few runs and the throughput in lines per second (target: <= 5 s);
  2. the in-process share: reading the file, and deciding the distinct commands;
  3. the editor's coverage lenses after a save, with 50 000 history commands: recomputing every
     rule's coverage under the edited policy (median ms; target <= 300 ms), and finding the past
     decisions a one-rule edit changes.

Usage: .venv/bin/python benchmarks/bench_replay.py [--lines 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 5.0
TARGET_LENS_MS = 300.0
SHAPES = (
    "git status --short", "git log --oneline -{n}", "git diff HEAD~{n}", "git push origin b{n}",
    "ls -la src/m{n}", "cat notes/{n}.md | grep -n TODO", "npm run build:{n}",
    "pytest -q tests/test_{n}.py -x", "rm -rf build/{n}", "cargo test -p crate{n} && echo ok",
    "tool{n} sub1 --flag", "find . -name '*.{n}' -delete", "docker run --rm img{n}",
    "curl -s http://127.0.0.1:{n}/health", "make target{n} -j2",
)  # fmt: skip


def rules_text(n: int) -> str:
    lines = [
        'prefix_rule(pattern=["git", ["status", "log", "diff"]], decision="allow")',
        'prefix_rule(pattern=["rm"], decision="forbidden", justification="use trash")',
        'prefix_rule(pattern=["find"], decision="prompt")',
    ]
    lines += [f'prefix_rule(pattern=["tool{i // 3}", "sub{i % 3}"], decision="allow")'
              for i in range(n - len(lines))]  # fmt: skip
    return "\n".join(lines) + "\n"


def history(lines: int, distinct_share: float) -> list[str]:
    rng = random.Random(13)
    distinct = max(1, int(lines * distinct_share))
    unique = [SHAPES[i % len(SHAPES)].format(n=i) for i in range(distinct)]
    # Every distinct command at least once, the rest drawn with a skew towards a few favourites.
    out = list(unique)
    out += [unique[min(int(rng.paretovariate(1.2)) - 1, distinct - 1)]
            for _ in range(lines - distinct)]  # fmt: skip
    rng.shuffle(out)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description="Replay speed (issue 13).")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rules = root / "policy.rules"
        rules.write_text(rules_text(1000))
        hist = root / ".bash_history"
        lines = history(args.lines, 0.2)
        hist.write_text("\n".join(lines) + "\n")
        env = {**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "HOME": str(root)}
        cmd = [sys.executable, "-m", "shellgate", "replay", str(hist), "--rules", str(rules),
               "--format", "json"]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, env=env)  # warm the rules cache
        walls = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env)
            walls.append(time.perf_counter() - t0)
        wall = statistics.median(walls)
        print(f"load average {os.getloadavg()[0]:.2f} (2 cores shared: figures scale with it)")
        print(f"history: {len(lines)} lines, {len(set(lines))} distinct; policy: 1000 rules")
        verdict = "met" if wall <= TARGET_S else "MISSED"
        print(f"whole process: median {wall:.2f} s of {args.runs} runs "
              f"(min {min(walls):.2f} s), {len(lines) / wall:,.0f} lines/s "
              f"(target <= {TARGET_S:.0f} s: {verdict})")  # fmt: skip

        from shellgate.approval.context import ExecContext
        from shellgate.codexconfig.layers import LayerKind, RulesLayer, load_layers
        from shellgate.replay.engine import replay
        from shellgate.replay.model import ReadStats
        from shellgate.replay.sources import Source, read_sources

        policy = load_layers([RulesLayer(LayerKind.CLI, None, (str(rules),))])
        stats = ReadStats()
        t0 = time.perf_counter()
        read = list(read_sources([Source("bash", str(hist))], stats))
        t1 = time.perf_counter()
        result = replay(read, policy, ExecContext())
        t2 = time.perf_counter()
        per = (t2 - t1) / max(len(result.entries), 1) * 1e6
        print(f"in process: reading {t1 - t0:.2f} s; deciding {len(result.entries)} distinct "
              f"{t2 - t1:.2f} s ({per:.0f} us each)")  # fmt: skip
        lenses(root, rules, read[:50_000])
    return 0


def lenses(root: Path, rules: Path, commands: list) -> None:  # type: ignore[type-arg]
    from shellgate.approval.context import ExecContext
    from shellgate.codexconfig.layers import LayerKind, RulesLayer, load_layers
    from shellgate.replay.coverage import CoverageIndex

    t0 = time.perf_counter()
    index = CoverageIndex(commands)
    built = time.perf_counter() - t0
    before = load_layers([RulesLayer(LayerKind.CLI, None, (str(rules),))])
    edited = root / "edited.rules"
    edited.write_text(rules.read_text().replace('["find"], decision="prompt"',
                                                '["find"], decision="forbidden"'))
    after = load_layers([RulesLayer(LayerKind.CLI, None, (str(edited),))])
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        index.coverage(after)
        samples.append((time.perf_counter() - t0) * 1000)
    t0 = time.perf_counter()
    changes = index.changes(before, after, ExecContext())
    changed_ms = (time.perf_counter() - t0) * 1000
    median = statistics.median(samples)
    verdict = "met" if median <= TARGET_LENS_MS else "MISSED"
    print(f"lenses: {len(commands)} history commands ({len(index.past)} distinct, indexed once "
          f"in {built:.2f} s): coverage after a save median {median:.0f} ms "
          f"(target <= {TARGET_LENS_MS:.0f} ms: {verdict}); the decisions a one-rule edit "
          f"changes ({sum(c.count for c in changes)}) found in {changed_ms:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
