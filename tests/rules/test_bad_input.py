"""Bad rules input through the real `shellgate check` process: a clear error (exit 1, Codex's
first line naming the file) in bounded time, never a Python traceback.

Where Codex 0.169.0 itself loads the file, ShellGate may either print what Codex printed (noted
per case, from running the binary) or refuse it with a clear error; where Codex crashes (stack
overflow on deep nesting, exit 134) or never finishes, ShellGate must refuse it cleanly.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

MB = 1024 * 1024
# A Python traceback's frame lines; Codex's own Starlark errors also say "Traceback", so the
# frame shape is what gives a Python one away.
PY_FRAME = re.compile(r'File ".*", line \d+')


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float


def check(cwd: Path, rules: str, command: list[str], limit: float) -> Run:
    env = dict(
        os.environ,
        HOME=str(cwd),
        XDG_CACHE_HOME=str(cwd / ".cache"),  # a fresh compiled-policy cache, if there is one
        RUST_BACKTRACE="0",
    )
    argv = [sys.executable, "-m", "shellgate", "check", "--rules", rules, "--", *command]
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`shellgate check` on {rules} took more than {limit} s")
    run = Run(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
        time.monotonic() - start,
    )
    assert not PY_FRAME.search(run.stderr), f"Python traceback:\n{run.stderr[-3000:]}"
    return run


def assert_refused(run: Run, first_line: str | tuple[str, ...]) -> None:
    firsts = (first_line,) if isinstance(first_line, str) else first_line
    assert run.code == 1, (run.code, run.stderr[-2000:])
    assert run.stdout == ""
    assert run.stderr.splitlines()[0] in firsts, run.stderr[:2000]


def assert_codex_output_or_refused(run: Run, name: str, codex_stdout: str) -> None:
    if run.code == 0:
        assert run.stdout == codex_stdout + "\n"
    else:
        assert_refused(
            run,
            (f"Error: failed to read policy at {name}", f"Error: failed to parse policy at {name}"),
        )


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "latin1.rules").write_bytes(b'prefix_rule(pattern=["caf\xe9"])\n')
    run = check(tmp_path, "latin1.rules", ["ls"], limit=30)
    # Codex: "Caused by: stream did not contain valid UTF-8".
    assert_refused(run, "Error: failed to read policy at latin1.rules")
    assert "UTF-8" in run.stderr


def test_directory(tmp_path: Path) -> None:
    (tmp_path / "adir.rules").mkdir()
    run = check(tmp_path, "adir.rules", ["ls"], limit=30)
    assert_refused(run, "Error: failed to read policy at adir.rules")  # Codex: "Is a directory"


def test_missing_path(tmp_path: Path) -> None:
    run = check(tmp_path, "missing.rules", ["ls"], limit=30)
    assert_refused(run, "Error: failed to read policy at missing.rules")


def _fifty_mb(line: str) -> str:
    return line * (50 * MB // len(line))


# (name, text, command, what codex 0.169.0 printed; it took 0.3 s, 0.2 s and 18 s)
FIFTY_MB = [
    ("comments.rules", lambda: _fifty_mb("# " + "x" * 97 + "\n"), ["ls"], '{"matchedRules":[]}'),
    ("string.rules", lambda: 'x = "' + "a" * 50 * MB + '"\n', ["ls"], '{"matchedRules":[]}'),
    (
        "rules.rules",
        lambda: "".join(
            f'prefix_rule(pattern=["tool{i}", "sub"], decision="allow")\n' for i in range(900_000)
        ),
        ["tool5", "sub"],
        '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["tool5","sub"],'
        '"decision":"allow"}}],"decision":"allow"}',
    ),
]


@pytest.mark.parametrize(
    ("name", "make", "command", "codex_stdout"),
    FIFTY_MB,
    ids=["comments", "one-string", "900k-rules"],
)
def test_fifty_megabytes(
    tmp_path: Path, name: str, make: object, command: list[str], codex_stdout: str
) -> None:
    assert callable(make)
    text = make()
    assert len(text.encode()) >= 50 * MB - 200
    (tmp_path / name).write_text(text)
    run = check(tmp_path, name, command, limit=120)
    assert_codex_output_or_refused(run, name, codex_stdout)


def test_deeply_nested_brackets(tmp_path: Path) -> None:
    # Codex overflows its stack on this (exit 134). ShellGate may evaluate it (what Codex would
    # print with a big enough stack) or refuse it, cleanly and in bounded time.
    (tmp_path / "nested.rules").write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    run = check(tmp_path, "nested.rules", ["ls"], limit=30)
    assert_codex_output_or_refused(run, "nested.rules", '{"matchedRules":[]}')


@pytest.mark.parametrize("depth", [201, 1000, 5000])
def test_nesting_codex_accepts(tmp_path: Path, depth: int) -> None:
    # Codex 0.169.0 loads these ({"matchedRules":[]}); Python's own parser stops at 200 levels,
    # so a position pass built on `ast`/`tokenize` must not be what decides.
    (tmp_path / "deep.rules").write_text("x = " + "[" * depth + "]" * depth + "\n")
    run = check(tmp_path, "deep.rules", ["ls"], limit=30)
    assert_codex_output_or_refused(run, "deep.rules", '{"matchedRules":[]}')


@pytest.mark.parametrize(
    "text",
    ["x = " + "-" * 100_000 + "1\n", "x = 1" + " + 1" * 100_000 + "\n"],
    ids=["unary-100k", "sum-100k"],
)
def test_long_expressions_codex_crashes_on(tmp_path: Path, text: str) -> None:
    # Codex overflows its stack on both (exit 134).
    (tmp_path / "long.rules").write_text(text)
    run = check(tmp_path, "long.rules", ["ls"], limit=30)
    assert_codex_output_or_refused(run, "long.rules", '{"matchedRules":[]}')


def test_endless_comprehension(tmp_path: Path) -> None:
    # 10^10 elements: Codex was still running after 60 s. ShellGate must stop it.
    (tmp_path / "comp.rules").write_text(
        "x = [[i, j] for i in range(100000) for j in range(100000)]\n"
    )
    run = check(tmp_path, "comp.rules", ["ls"], limit=60)
    assert_refused(run, "Error: failed to parse policy at comp.rules")


def test_large_comprehension(tmp_path: Path) -> None:
    # 10^8 elements: Codex loads it in about 5 s and prints {"matchedRules":[]}.
    (tmp_path / "comp.rules").write_text("x = [i for i in range(100000000)]\n")
    run = check(tmp_path, "comp.rules", ["ls"], limit=60)
    assert_codex_output_or_refused(run, "comp.rules", '{"matchedRules":[]}')


def test_nul_inside_a_pattern_token(tmp_path: Path) -> None:
    # Codex keeps the NUL: the token "a\0b" never equals "a". (The starlark-go binding cuts
    # strings at NUL when it hands them to Python; a loader relying on that would match "a".)
    (tmp_path / "nul.rules").write_text(
        'prefix_rule(pattern=["x", "a\\x00b"], decision="allow")\n'
        'prefix_rule(pattern=["y\\u0000z"], decision="forbidden")\n'
    )
    run = check(tmp_path, "nul.rules", ["x", "a"], limit=30)
    assert (run.code, run.stdout) == (0, '{"matchedRules":[]}\n')
    run = check(tmp_path, "nul.rules", ["y"], limit=30)
    assert (run.code, run.stdout) == (0, '{"matchedRules":[]}\n')


def test_nul_inside_a_decision(tmp_path: Path) -> None:
    # Codex: "invalid decision: allow\0".
    (tmp_path / "nul.rules").write_text('prefix_rule(pattern=["y"], decision="allow\\x00")\n')
    run = check(tmp_path, "nul.rules", ["y"], limit=30)
    assert_refused(run, "Error: failed to parse policy at nul.rules")
    assert "invalid decision" in run.stderr
