"""The pinned Codex releases as a live oracle: random policies and commands through the real
`shellgate check` process and `codex execpolicy check` of each pinned version, compared byte for
byte (stdout, exit code, and the first `Error:` line of stderr on a failure).

A drawn case (live_policies.py) is one policy (one or two rules files of `prefix_rule` with
alternatives, decisions, justifications and `match`/`not_match` examples, `host_executable` and
`network_rule`; one policy in four with a fault) and a batch of commands checked against it
(bare names, absolute, relative and `~` paths), each with or without
`--resolve-host-executables` and `--pretty`. Batching keeps it fast: ShellGate compiles a policy
once (its first command is a cache miss, the others hits, so both paths are compared), and
ShellGate's answers are shared between the versions.

The seed is fresh every run (CI's derandomized profile would otherwise draw the same inputs each
time) and printed: `SHELLGATE_ORACLE_SEED=<seed>` reproduces a run,
`SHELLGATE_ORACLE_POLICIES=<n>` changes how many policies are drawn per version.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, note, seed, settings
from live_policies import Case, Check, cases, network_wrap

import realtools

SEED = int(os.environ.get("SHELLGATE_ORACLE_SEED") or random.SystemRandom().randrange(2**32))
POLICIES = int(os.environ.get("SHELLGATE_ORACLE_POLICIES") or 60)
COMMANDS_PER_POLICY = (3, 8)


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: bytes
    error: str  # the first `Error:` line of stderr (else its first line); "" on success
    # The cause: the `error: ...` line of the report. Compared where Codex's is its own words,
    # not a Starlark-level error (those are worded by starlark-go: README, deliberate
    # differences).
    detail: str = field(compare=False)
    crash: str = field(default="", compare=False)  # all of stderr after a Python traceback

    @classmethod
    def of(cls, proc: subprocess.CompletedProcess[bytes]) -> Outcome:
        if proc.returncode == 0 and not proc.stderr:
            return cls(0, proc.stdout, "", "")
        stderr = proc.stderr.decode("utf-8", "replace")
        lines = stderr.splitlines()
        errors = [line for line in lines if line.startswith("Error:")]
        # Python's own traceback starts a line (Starlark's, in Codex's report, is indented).
        crash = stderr if "Traceback (most recent call last):" in lines else ""
        first = errors[0] if errors else lines[0]
        return cls(proc.returncode, proc.stdout, first, _detail(lines), crash)


def _detail(lines: list[str]) -> str:
    """The oracle's `error_detail`: the first `error: ` line, else the first line after
    `Caused by:`. (Its `-->` location is not compared: ShellGate points at the argument at
    fault, Codex at the call.)"""
    stripped = [line.strip() for line in lines]
    for line in stripped:
        if line.startswith("error: "):
            return line
    if "Caused by:" in stripped:
        return next((line for line in stripped[stripped.index("Caused by:") + 1 :] if line), "")
    return ""


@dataclass
class Oracle:
    """Runs both sides in one folder layout: cwd work/, HOME=home/, TMPDIR=tmpdir/ (a
    CODEX_HOME under TMPDIR makes Codex warn on stderr), so paths come out identical."""

    root: Path
    env: dict[str, str]
    wrap: list[str]
    shellgate_seen: dict[tuple[object, ...], Outcome]

    @property
    def work(self) -> Path:
        return self.root / "work"

    def write(self, case: Case) -> list[str]:
        shutil.rmtree(self.work)
        self.work.mkdir()
        for name, text in case.files:
            if text is not None:
                (self.work / name).parent.mkdir(parents=True, exist_ok=True)
                (self.work / name).write_bytes(text.encode("utf-8"))
        return [name for name, _ in case.files]

    def run(self, argv: list[str]) -> Outcome:
        proc = subprocess.run(argv, cwd=self.work, env=self.env, capture_output=True, timeout=60)
        return Outcome.of(proc)

    def run_codex(self, argv: list[str]) -> Outcome:
        # Codex locks CODEX_HOME to make its PATH aliases, and warns on stderr when another run
        # holds the lock: one CODEX_HOME per worker thread (HOME, which `~` expands to, stays).
        home = self.root / f"codex-home-{threading.get_ident()}"
        home.mkdir(exist_ok=True)
        env = dict(self.env, CODEX_HOME=str(home))
        proc = subprocess.run(argv, cwd=self.work, env=env, capture_output=True, timeout=60)
        return Outcome.of(proc)

    def shellgate(self, case: Case, files: list[str], pool: ThreadPoolExecutor) -> list[Outcome]:
        key = (case.files,)
        argvs = [[sys.executable, "-m", "shellgate", "check", *c.args(files)] for c in case.checks]
        keys = [(*key, c) for c in case.checks]
        todo = [i for i, k in enumerate(keys) if k not in self.shellgate_seen]
        if todo:
            # The first compiles the policy into the cache; the rest read it back, in parallel.
            self.shellgate_seen[keys[todo[0]]] = self.run(argvs[todo[0]])
            rest = pool.map(self.run, [argvs[i] for i in todo[1:]])
            for i, got in zip(todo[1:], rest, strict=True):
                self.shellgate_seen[keys[i]] = got
        return [self.shellgate_seen[k] for k in keys]

    def codex(
        self, codex: Path, case: Case, files: list[str], pool: ThreadPoolExecutor
    ) -> list[Outcome]:
        argvs = [
            [*self.wrap, str(codex), "execpolicy", "check", *c.args(files)] for c in case.checks
        ]
        return list(pool.map(self.run_codex, argvs))


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    root = tmp_path_factory.mktemp("live-codex")
    for sub in ("home", "work", "tmpdir", "cache"):
        (root / sub).mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUST_", "SHELLGATE_NO_"))}
    env.update(
        HOME=str(root / "home"),
        CODEX_HOME=str(root / "home"),
        TMPDIR=str(root / "tmpdir"),
        XDG_CACHE_HOME=str(root / "cache"),
        RUST_BACKTRACE="0",
    )
    yield Oracle(root, env, network_wrap(), {})


def _describe(case: Case, check: Check, ours: Outcome, theirs: Outcome, version: str) -> str:
    files = "\n".join(
        f"--- {name}\n{text if text is not None else '(not written)'}" for name, text in case.files
    )
    return (
        f"shellgate check and codex {version} differ (SHELLGATE_ORACLE_SEED={SEED})\n{files}\n"
        f"argv: {check.args([n for n, _ in case.files])!r}\n"
        f"shellgate: {ours!r}\n"
        f"codex:     {theirs!r}"
    )


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_random_policies_agree_with_codex(
    version: str, oracle: Oracle, capsys: pytest.CaptureFixture[str]
) -> None:
    codex = realtools.codex(version)
    with capsys.disabled():
        print(
            f"\nlive codex {version}: {POLICIES} random policies, seed {SEED} "
            f"(reproduce: SHELLGATE_ORACLE_SEED={SEED})"
        )
    kinds: dict[str, int] = {"matched": 0, "unmatched": 0, "error": 0}
    pool = ThreadPoolExecutor(max_workers=3)

    @seed(SEED)
    @settings(
        max_examples=POLICIES,
        deadline=None,
        database=None,
        # No shrinking: each step reruns a batch of processes (minutes); the report carries the
        # whole case and the seed reproduces it.
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(case=cases(COMMANDS_PER_POLICY))
    def agree(case: Case) -> None:
        files = oracle.write(case)
        note(f"files: {case.files!r}")
        ours = oracle.shellgate(case, files, pool)
        theirs = oracle.codex(codex, case, files, pool)
        for check, mine, real in zip(case.checks, ours, theirs, strict=True):
            assert not mine.crash, mine.crash
            assert mine == real, _describe(case, check, mine, real, version)
            if not real.detail.startswith("starlark error:"):
                assert mine.detail == real.detail, _describe(case, check, mine, real, version)
            matched = b'"decision"' in real.stdout
            kinds["error" if real.code else "matched" if matched else "unmatched"] += 1

    try:
        agree()
    finally:
        pool.shutdown()
    with capsys.disabled():
        print(f"live codex {version}: all {sum(kinds.values())} commands agree: {kinds}")
    assert sum(kinds.values()) >= POLICIES * COMMANDS_PER_POLICY[0]
