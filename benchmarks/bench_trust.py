"""Project trust speed (issue 10): what resolving Codex's trust adds to every decision.

Prints, for a config.toml with --projects entries and a cwd four folders below a git project
root holding `.codex` folders:
  1. `codex_layers_for` with config.toml unchanged (the kept parse; the editor's and the
     broker's case): median and p90 in microseconds; target: median <= 1 000 us; then the
     same with an admin tier (`system_dir`: rules, requirements.toml, config.toml; issue 19);
  2. the same with config.toml parsed afresh every call (tomllib; a hook's first call);
  3. importing `shellgate.codexconfig.trust` in a fresh interpreter, over a bare one (median ms).

Usage: .venv/bin/python benchmarks/bench_trust.py [--projects 500] [--runs 2000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shellgate.codexconfig import trust
from shellgate.codexconfig.resolve import codex_layers_for


def _times(fn: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append((time.perf_counter() - start) * 1e6)
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--projects", type=int, default=500)
    ap.add_argument("--runs", type=int, default=2000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        home, proj = d / "home", d / "proj"
        cwd = proj / "a" / "b" / "c" / "d"
        for folder in (proj, proj / "a" / "b", cwd):
            (folder / ".codex" / "rules").mkdir(parents=True)
        (proj / ".git").mkdir()
        home.mkdir()
        config = home / "config.toml"
        entries = [f'[projects."/elsewhere/{i}"]\ntrust_level = "trusted"\n'
                   for i in range(args.projects)]  # fmt: skip
        config.write_text("".join(entries) + f'[projects."{proj}"]\ntrust_level = "trusted"\n')
        os.utime(config, (time.time() - 60, time.time() - 60))
        warm = _times(lambda: codex_layers_for(cwd, codex_home=home), args.runs)
        # issue 19: the same with an admin tier (system rules, requirements.toml, config.toml)
        system = d / "etc-codex"
        (system / "rules").mkdir(parents=True)
        (system / "rules" / "admin.rules").write_text('prefix_rule(pattern=["rm"], '
                                                      'decision="forbidden")\n')  # fmt: skip
        (system / "requirements.toml").write_text(
            'allowed_sandbox_modes = ["read-only", "workspace-write"]\n[rules]\nprefix_rules = '
            '[{ pattern = [{ token = "git" }, { token = "push" }], decision = "prompt" }]\n'
        )
        (system / "config.toml").write_text('approval_policy = "on-request"\n')
        for f in (system / "requirements.toml", system / "config.toml"):
            os.utime(f, (time.time() - 60, time.time() - 60))
        tiered = _times(lambda: codex_layers_for(cwd, codex_home=home, system_dir=system),
                        args.runs)  # fmt: skip

        def cold() -> None:
            trust._CONFIGS.clear()
            codex_layers_for(cwd, codex_home=home)

        fresh = _times(cold, max(20, args.runs // 50))
    median, p90 = statistics.median(warm), warm[int(len(warm) * 0.9)]
    ok = "met" if median <= 1000 else "MISSED"
    print(f"codex_layers_for, {args.projects + 1} projects, config unchanged: "
          f"median {median:.0f} us, p90 {p90:.0f} us (target <= 1000 us: {ok})")  # fmt: skip
    t_median = statistics.median(tiered)
    ok = "met" if t_median <= 1000 else "MISSED"
    print(f"codex_layers_for with a system tier: median {t_median:.0f} us, "
          f"p90 {tiered[int(len(tiered) * 0.9)]:.0f} us (target <= 1000 us: {ok}; "
          f"{t_median - median:+.0f} us)")  # fmt: skip
    print(f"codex_layers_for, config parsed afresh: median {statistics.median(fresh):.0f} us")
    def spawn(code: str) -> float:
        runs = []
        for _ in range(7):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            runs.append((time.perf_counter() - start) * 1e3)
        return statistics.median(runs)

    base, imported = spawn("pass"), spawn("import shellgate.codexconfig.trust")
    print(f"import shellgate.codexconfig.trust: {imported - base:.0f} ms over a bare interpreter "
          f"({base:.0f} ms)")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
