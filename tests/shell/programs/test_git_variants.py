"""Seeded variants of git's hand-overs (issue 24's generator for git): a key that runs a
command, given each way git takes configuration (`-c`, `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`,
`GIT_CONFIG_PARAMETERS`, `--config-env`, a plain alias carrying `-c`), as an assignment, through
`env`, or `export`ed earlier, with global options around it and the value in each of bash's
quotings. Each variant runs in real bash with real git in a fresh repository with a logging
`rm` stub (it counts only when the stub ran), then goes through the gate
(`approval.beyond.gate_requirement`, git's files read for that repository) under `rm`
forbidden alone and with `git` allowed too: it must be refused.

The seed is fresh each run and printed (`SHELLGATE_GIT_SEED=S` reproduces a run,
`SHELLGATE_GIT_N` sets the count)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.approval.beyond import gate_requirement
from shellgate.approval.context import ExecContext
from shellgate.approval.requirement import Forbidden
from shellgate.rules.loader import load_policy
from shellgate.shell.programs.git_files import git_files

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("bash") is None, reason="needs git and bash"
)

SEED = int(os.environ.get("SHELLGATE_GIT_SEED") or random.SystemRandom().randrange(1 << 31))
N = int(os.environ.get("SHELLGATE_GIT_N", "24"))
RM_ONLY = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
WITH_GIT = RM_ONLY + 'prefix_rule(pattern=["git"], decision="allow")\n'

# key, value, the git words that make git run it (in the fixture's repository)
KEYS = [
    ("alias.x", "!rm -rf build", "x"),
    ("core.fsmonitor", "rm -rf build #", "status"),
    ("diff.external", "rm -rf build #", "diff"),
    ("diff.t.textconv", "rm -rf build #", "diff"),
    ("core.editor", "rm -rf build #", "commit"),
    ("core.sshCommand", "rm -rf build #", "ls-remote ssh://h/r"),
    ("filter.t.clean", "rm -rf build #", "add f"),
    ("remote.here.uploadpack", "rm -rf build #", "fetch here"),
    ("gpg.program", "rm", "commit -q -S -m signed"),
    ("sequence.editor", "rm -rf build #", "rebase -q -i HEAD~1"),
]
GLOBALS = ["", "-C . ", "--no-pager ", "-c color.ui=never ", "--literal-pathspecs "]
_STUB = '#!/bin/sh\nprintf "rm %s\\n" "$*" >> "$STUB_LOG"\n'


def _quote(value: str, rng: random.Random) -> str:
    """`value` as one bash word, in one of bash's quotings."""
    way = rng.choice(["single", "double", "ansi", "backslash"])
    if way == "single":
        return "'" + value.replace("'", "'\\''") + "'"
    if way == "double":
        return '"' + "".join("\\" + c if c in '"\\$`' else c for c in value) + '"'
    if way == "ansi":
        return "$'" + "".join(f"\\x{ord(c):02x}" if c in " !#" else c for c in value) + "'"
    return "".join("\\" + c if not c.isalnum() and c not in "._-/" else c for c in value)


def variant(rng: random.Random) -> tuple[str, str]:
    """(a script that makes git run `rm`, how it gives the configuration)."""
    key, value, sub = rng.choice(KEYS)
    pre = "git stash -q && " if "rebase" in sub else ""  # rebase wants a clean work tree
    lead = rng.choice(GLOBALS)
    way = rng.choice(["-c", "count", "parameters", "config-env", "alias-c"])
    if way == "-c":
        return f"{pre}git {lead}-c {_quote(f'{key}={value}', rng)} {sub}", way
    if way == "alias-c":
        inner = f"-c {key}='{value}' {sub}" if key != "alias.x" else f"-c {key}='{value}' x"
        return f"{pre}git {lead}-c {_quote(f'alias.w={inner}', rng)} w", way
    if way == "config-env":
        assign = f"V={_quote(value, rng)}"
        option = rng.choice([f"--config-env={key}=V", f"--config-env {key}=V"])
        return _environment(pre, assign, f"git {lead}{option} {sub}", rng), way
    if way == "count":
        assign = (f"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0={key} "
                  f"GIT_CONFIG_VALUE_0={_quote(value, rng)}")  # fmt: skip
        return _environment(pre, assign, f"git {lead}{sub}", rng), way
    params = _quote(f"'{key}'='{value}'", rng)
    return _environment(pre, f"GIT_CONFIG_PARAMETERS={params}", f"git {lead}{sub}", rng), way


def _environment(pre: str, assign: str, command: str, rng: random.Random) -> str:
    form = rng.choice(["assign", "env", "export"])
    if form == "assign":
        return f"{pre}{assign} {command}"
    if form == "env":
        return f"{pre}env {assign} {command}"
    return f"{pre}export {assign}; {command}"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("gitvariants")
    home, stubs = root / "home", root / "stubs"
    home.mkdir()
    stubs.mkdir()
    (stubs / "rm").write_text(_STUB)
    (stubs / "rm").chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{stubs}:/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_TERMINAL_PROMPT": "0", "LANG": "C", "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@e", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@e"}  # fmt: skip
    setup = """set -e
    git init -q repo && cd repo
    echo a > f && echo '* diff=t filter=t' > .gitattributes && mkdir build && touch build/x
    git add f .gitattributes && git commit -qm one && echo b >> f && git commit -qam two
    echo c >> f && echo new > g && git add g && git remote add here .
    """
    subprocess.run(["bash", "-c", setup], cwd=root, env=env, check=True, capture_output=True)
    return root / "repo", env


def test_seeded_git_variants_run_rm_and_are_refused(
    template: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, base = template
    rng = random.Random(SEED)
    policies = {}
    for name, text in (("rm-forbidden", RM_ONLY), ("git-allowed-too", WITH_GIT)):
        (tmp_path / f"{name}.rules").write_text(text)
        policies[name] = load_policy([tmp_path / f"{name}.rules"])
    ran, missed, ways = 0, [], set()
    for n in range(N):
        script, way = variant(rng)
        work = tmp_path / f"v{n}"
        shutil.copytree(repo, work, symlinks=True)
        env = {**base, "STUB_LOG": str(tmp_path / f"log{n}")}
        subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True,
                       timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
        if not Path(env["STUB_LOG"]).exists():
            continue  # bash and git did not run rm for it: not a spelling of rm
        ran += 1
        ways.add(way)
        files = git_files(str(work), env)
        for name, policy in policies.items():
            got = gate_requirement(["bash", "-lc", script], ExecContext(), policy, git=files)
            if not isinstance(got, Forbidden):
                missed.append((name, script, got))
    print(f"seed {SEED}: {N} git variants generated, {ran} ran rm per bash, allowed: {len(missed)}")
    assert not missed, f"seed {SEED}: {missed[:5]}"
    assert ran >= N // 2, f"seed {SEED}: only {ran} of {N} variants ran rm in real bash"
