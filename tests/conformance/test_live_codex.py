"""The pinned Codex releases as a live oracle: random policies and commands through the real
`shellgate check` process and `codex execpolicy check` of each pinned version, compared byte for
byte (stdout, exit code, and the first `Error:` line of stderr on a failure).

A drawn case is one policy (one or two rules files of `prefix_rule` with alternatives,
decisions, justifications and `match`/`not_match` examples, some of them failing, plus
`host_executable` and `network_rule`, some invalid) and a batch of commands checked against it
(bare names, absolute, relative and `~` paths for host executables), each with or without
`--resolve-host-executables` and `--pretty`. Batching keeps it fast: ShellGate compiles a policy
once (its first command is a cache miss, the others hits, so both paths are compared), and
ShellGate's answers are shared between the versions.

The seed is fresh every run (CI's derandomized profile would otherwise draw the same inputs each
time) and printed: `SHELLGATE_ORACLE_SEED=<seed>` reproduces a run,
`SHELLGATE_ORACLE_POLICIES=<n>` changes how many policies are drawn per version.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, seed, settings
from hypothesis import strategies as st

import realtools

SEED = int(os.environ.get("SHELLGATE_ORACLE_SEED") or random.SystemRandom().randrange(2**32))
POLICIES = int(os.environ.get("SHELLGATE_ORACLE_POLICIES") or 60)
COMMANDS_PER_POLICY = (3, 8)

PROGRAMS = ["git", "ls", "rm", "npm", "cargo"]
WORDS = ["status", "push", "-rf", "--force", "origin", "main", "a b", "x", "", "é", '"q"', "\\"]
WORDS_RARE = ["\n", "\t", "\x01", "--", "~", "*"]
# Where a host executable may live; `/opt/bin/..` and `//` test the lexical normalisation.
DIRS = ["/usr/bin", "/bin", "/opt/tools", "/usr/local/bin"]
HOSTS = [
    "example.com",
    "Example.COM.",
    "api.example.com:443",
    "[::1]:8080",
    "10.0.0.1",
    "*",
    "*.example.com",
    "https://example.com",
    "a b",
    "",
    "user@host",
    "[::1",
]
PROTOCOLS = ["http", "https", "socks5_tcp", "socks5_udp", "https_connect", "ftp"]
DECISIONS = ["allow", "prompt", "forbidden"]


def _lit(value: object) -> str:
    """A Starlark literal: JSON's string escapes are Starlark's too, lists and ints alike."""
    return json.dumps(value, ensure_ascii=False)


@st.composite
def _token(draw: st.DrawFn, programs: bool = False) -> str:
    pool = PROGRAMS if programs else WORDS
    if draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from(WORDS_RARE))
    return draw(st.sampled_from(pool))


@st.composite
def _pattern_element(draw: st.DrawFn, first: bool) -> object:
    kind = draw(st.integers(0, 29))
    if kind < 20:
        return draw(_token(programs=first))
    if kind < 28:  # alternatives
        return draw(st.lists(_token(programs=first), min_size=1, max_size=3))
    return draw(st.sampled_from([[], 7, None]))  # invalid: Codex rejects each


@st.composite
def _example(draw: st.DrawFn, pattern: list[object]) -> object:
    """An example built from the pattern (so it usually matches), or a random one; as a list of
    tokens or as a string Codex shlex-splits."""
    if draw(st.booleans()):
        tokens = [
            draw(st.sampled_from(p)) if isinstance(p, list) and p else p
            for p in pattern
            if isinstance(p, str | list)
        ]
        tokens = [t for t in tokens if isinstance(t, str)]
        tokens += draw(st.lists(_token(), max_size=2))
    else:
        tokens = [draw(_token(programs=True)), *draw(st.lists(_token(), max_size=2))]
    if draw(st.integers(0, 9)) == 0:
        tokens[0] = f"{draw(st.sampled_from(DIRS))}/{tokens[0]}" if tokens else "/bin/x"
    if draw(st.booleans()):
        return " ".join(tokens)  # quoting left as it falls: shlex errors are compared too
    return tokens


@st.composite
def _prefix_rule(draw: st.DrawFn) -> str:
    pattern = [draw(_pattern_element(first=True))]
    pattern += draw(st.lists(_pattern_element(first=False), max_size=3))
    if draw(st.integers(0, 39)) == 0:
        pattern = []
    args = [f"pattern={_lit(pattern)}"]
    choice = draw(st.integers(0, 19))
    if choice < 17:
        args.append(f"decision={_lit(DECISIONS[choice % 3])}")
    elif choice < 19:
        args.append(f"decision={_lit(draw(st.sampled_from(['deny', 'ask', 'Allow'])))}")
    if draw(st.integers(0, 3)) == 0:
        args.append(f"justification={_lit(draw(st.sampled_from(['why', 'a “quoted” one', ''])))}")
    for key in ("match", "not_match"):
        if draw(st.integers(0, 3)) == 0:
            args.append(f"{key}={_lit(draw(st.lists(_example(pattern), max_size=3)))}")
    return f"prefix_rule({', '.join(args)})"


@st.composite
def _host_executable(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from([*PROGRAMS[:3], "bin/git", ""]))
    paths = []
    for _ in range(draw(st.integers(0, 3))):
        base = draw(st.sampled_from([name, name, "other"]))
        folder = draw(st.sampled_from([*DIRS, "/opt/bin/..", "//usr/bin", "relative"]))
        paths.append(f"{folder}/{base}")
    return f"host_executable(name={_lit(name)}, paths={_lit(paths)})"


@st.composite
def _network_rule(draw: st.DrawFn) -> str:
    args = [
        f"host={_lit(draw(st.sampled_from(HOSTS)))}",
        f"protocol={_lit(draw(st.sampled_from(PROTOCOLS)))}",
        f"decision={_lit(draw(st.sampled_from(['allow', 'deny', 'prompt', 'forbidden', 'ask'])))}",
    ]
    if draw(st.booleans()):
        args.append(f"justification={_lit(draw(st.sampled_from(['proxy', ''])))}")
    return f"network_rule({', '.join(args)})"


@st.composite
def _rules_file(draw: st.DrawFn) -> str:
    calls = draw(
        st.lists(
            st.one_of(
                _prefix_rule(), _prefix_rule(), _prefix_rule(), _host_executable(), _network_rule()
            ),
            max_size=6,
        )
    )
    return "".join(f"{call}\n" for call in calls)


@st.composite
def _command(draw: st.DrawFn) -> list[str]:
    program = draw(_token(programs=True))
    form = draw(st.integers(0, 9))
    if form in (6, 7):
        program = f"{draw(st.sampled_from(DIRS))}/{program}"
    elif form == 8:
        program = draw(
            st.sampled_from([f"./{program}", f"~/bin/{program}", f"/opt/bin/../{program}"])
        )
    return [program, *draw(st.lists(_token(), max_size=3))]


@dataclass(frozen=True)
class Check:
    command: tuple[str, ...]
    resolve: bool
    pretty: bool

    def args(self, files: list[str]) -> list[str]:
        argv = [arg for name in files for arg in ("--rules", name)]
        argv += ["--resolve-host-executables"] * self.resolve + ["--pretty"] * self.pretty
        return [*argv, "--", *self.command]


@dataclass(frozen=True)
class Case:
    files: tuple[tuple[str, str | None], ...]  # (name, text); None: passed but never written
    checks: tuple[Check, ...]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    files: list[tuple[str, str | None]] = [("a.rules", draw(_rules_file()))]
    extra = draw(st.integers(0, 9))
    if extra < 3:
        files.append(("sub/b.rules", draw(_rules_file())))
    elif extra == 3:
        files.append(("missing.rules", None))
    checks = draw(
        st.lists(
            st.builds(
                Check, _command().map(tuple), st.booleans(), st.integers(0, 4).map(lambda n: n == 0)
            ),
            min_size=COMMANDS_PER_POLICY[0],
            max_size=COMMANDS_PER_POLICY[1],
        )
    )
    return Case(tuple(files), tuple(checks))


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: bytes
    error: str  # the first `Error:` line of stderr (else its first line); "" on success

    @classmethod
    def of(cls, proc: subprocess.CompletedProcess[bytes]) -> Outcome:
        if proc.returncode == 0 and not proc.stderr:
            return cls(0, proc.stdout, "")
        stderr = proc.stderr.decode("utf-8", "replace")
        if "Traceback (most recent call last)" in stderr:  # a Python crash: keep all of it
            return cls(proc.returncode, proc.stdout, stderr)
        lines = stderr.splitlines()
        errors = [line for line in lines if line.startswith("Error:")]
        return cls(proc.returncode, proc.stdout, errors[0] if errors else (lines or [""])[0])


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


def _network_wrap() -> list[str]:
    """`unshare -rn` (loopback only) around the third-party binary, where the kernel allows it."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn"]
    return []


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
    yield Oracle(root, env, _network_wrap(), {})


def _describe(case: Case, check: Check, ours: Outcome, theirs: Outcome, version: str) -> str:
    files = "\n".join(
        f"--- {name}\n{text if text is not None else '(not written)'}" for name, text in case.files
    )
    return (
        f"shellgate check and codex {version} differ (SHELLGATE_ORACLE_SEED={SEED})\n{files}\n"
        f"argv: {check.args([n for n, _ in case.files])!r}\n"
        f"shellgate: exit {ours.code}, stdout {ours.stdout!r}, error {ours.error!r}\n"
        f"codex:     exit {theirs.code}, stdout {theirs.stdout!r}, error {theirs.error!r}"
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
    compared: list[int] = []
    pool = ThreadPoolExecutor(max_workers=3)

    @seed(SEED)
    @settings(
        max_examples=POLICIES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(case=cases())
    def agree(case: Case) -> None:
        files = oracle.write(case)
        note(f"files: {case.files!r}")
        ours = oracle.shellgate(case, files, pool)
        theirs = oracle.codex(codex, case, files, pool)
        for check, mine, real in zip(case.checks, ours, theirs, strict=True):
            assert "Traceback (most recent call last)" not in mine.error, mine.error
            assert mine == real, _describe(case, check, mine, real, version)
        compared.append(len(case.checks))

    try:
        agree()
    finally:
        pool.shutdown()
    with capsys.disabled():
        print(f"live codex {version}: {sum(compared)} commands on {len(compared)} policies agree")
    assert sum(compared) >= POLICIES * COMMANDS_PER_POLICY[0]
