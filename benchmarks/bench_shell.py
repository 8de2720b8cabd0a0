"""Shell analysis speed: split + dangerous check of a five-segment `bash -lc` script.

Prints the median (and p90) in microseconds of
  1. the plain path: `parse_shell_lc_plain_commands` + `dangerous_command_match` on a
     five-segment plain script (what the decision chain does for a typical agent command);
  2. the same for a five-command script that is not plain (a substitution and a redirection);
  3. what importing tree-sitter and the bash grammar costs in a fresh interpreter, and the
     first parse there (the parser is made on first use);
  4. the bashlex cross-check (long-lived processes only): the plain path with it on, its cost
     per plain script over the differential test's ordinary tier, and `import bashlex` in a
     fresh interpreter; and that the one-shot path (`shellgate explain`) never imports it.

Usage: .venv/bin/python benchmarks/bench_shell.py [--runs 2000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from shellgate.shell import bash_reading
from shellgate.shell.dangerous import dangerous_command_match
from shellgate.shell.split import parse_shell_lc_plain_commands
from shellgate.shell.tsbash import _read_split, parse

PLAIN = [
    "bash",
    "-lc",
    "git status && ls -la src | grep -n 'TODO' ; cargo test -p core || rm -rf build",
]
COMPLEX = [
    "bash",
    "-lc",
    'cd "$(git rev-parse --show-toplevel)" && ls > /tmp/out; wc -l < /tmp/out | sort; rm -rf build',
]


def _chain(argv: list[str]) -> None:
    parse.cache_clear()  # each run a script never seen: a parse per run, as for a new command
    _read_split.cache_clear()
    commands = parse_shell_lc_plain_commands(argv) or [argv]
    for command in commands:
        dangerous_command_match(command)


def _measure(fn: Callable[[], None], runs: int) -> tuple[float, float]:
    for _ in range(min(200, runs)):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9)]


def _fresh_ms(setup: str, timed: str) -> float:
    """Milliseconds `timed` takes in a fresh interpreter, after `setup`."""
    code = f"{setup}\nimport time\nt = time.perf_counter()\n{timed}\n"
    code += "print((time.perf_counter() - t) * 1000)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    assert (
        parse_shell_lc_plain_commands(PLAIN) is not None
        and len(parse_shell_lc_plain_commands(PLAIN) or []) == 5
    )
    assert parse_shell_lc_plain_commands(COMPLEX) is None

    median, p90 = _measure(lambda: _chain(PLAIN), args.runs)
    print(f"plain 5-segment bash -lc, split + dangerous: median {median:.1f} us, p90 {p90:.1f} us")
    median, p90 = _measure(lambda: _chain(COMPLEX), max(50, args.runs // 10))
    print(f"non-plain 5-command bash -lc:               median {median:.1f} us, p90 {p90:.1f} us")
    imports = [_fresh_ms("", "import shellgate.shell.tsbash") for _ in range(7)]
    first = [
        _fresh_ms("from shellgate.shell.split import try_parse_word_only_commands_sequence as f",
                  "f('ls -1')")
        for _ in range(7)
    ]  # fmt: skip
    print(f"import tree-sitter + grammar (fresh):       median {statistics.median(imports):.1f} ms")
    print(f"first parse in a fresh interpreter:         median {statistics.median(first):.2f} ms")

    bash_reading.enable()
    assert parse_shell_lc_plain_commands(PLAIN) is not None
    median, p90 = _measure(lambda: _chain(PLAIN), max(50, args.runs // 4))
    print(f"plain 5-segment, with the cross-check:      median {median:.1f} us, p90 {p90:.1f} us")
    print(f"cross-check per plain script (ordinary):    {_cross_check_cost()}")
    bashlex = [_fresh_ms("", "import bashlex") for _ in range(5)]
    print(f"import bashlex (fresh; long-lived only):    median {statistics.median(bashlex):.1f} ms")
    one_shot = subprocess.run(
        [sys.executable, "-c", "import sys; from shellgate.cli import main; "
         "main(['explain', '--shell', 'git status && ls | wc -l']); "
         "print('bashlex' in sys.modules, file=sys.stderr)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    loaded = one_shot.stderr.strip().splitlines()[-1]
    print(f"shellgate explain imports bashlex:          {loaded} (target: False)")
    return 0 if loaded == "False" else 1


def _cross_check_cost() -> str:
    """Median and p90 of what the cross-check adds to a plain script's split, over the
    differential test's ordinary scripts (seed 2)."""
    tests = Path(__file__).parents[1] / "tests"
    sys.path[:0] = [str(tests / "shell"), str(tests)]  # bash_oracle, its helper
    import bash_oracle

    scripts = [s.text for s in bash_oracle.generate(1000, 2) if s.tier == "ordinary"]
    added: list[float] = []
    for script in scripts:
        times = []
        for on in (False, True):
            (bash_reading.enable if on else bash_reading.disable)()
            parse.cache_clear()
            _read_split.cache_clear()
            start = time.perf_counter_ns()
            plain = parse_shell_lc_plain_commands(["bash", "-lc", script])
            times.append((time.perf_counter_ns() - start) / 1e6)
        if plain is not None or times[1] > times[0]:
            added.append(times[1] - times[0])
    added.sort()
    return (
        f"median {statistics.median(added):.2f} ms, p90 {added[int(len(added) * 0.9)]:.2f} ms "
        f"over {len(added)} scripts"
    )


if __name__ == "__main__":
    sys.exit(main())
