"""No agent is looser with ShellGate than alone on a command handed to a program that runs it
(issue 24): the host-program corpus, against the real programs.

The corpus: issue 24's spellings and their siblings (host_spellings.ISSUE, MORE), every
GTFOBins code of the kept entries with `rm -rf x` as its payload (gtfobins.py), and N variants
drawn from a seed that is fresh on each run and printed (`SHELLGATE_HOST_CORPUS_SEED=<seed>`
reproduces a run, `SHELLGATE_HOST_CORPUS_N` changes N). Real bash runs each one first, with the
real host programs and recording stubs for the forbidden ones (host_truth): only a spelling
whose stub recorded the forbidden command counts. Each of those then goes to the hooks of
Claude Code, Gemini CLI and Copilot CLI with the options `hook install` writes (its default
sandbox), under two rule sets: the forbidden programs alone, and the same with every host
program of the corpus allowed by name. None may be answered `allow` (sandboxed or not): a
literal command is denied, one decided at run time is asked; the two that run code from a file
that was there before the command, out of reach by design (docs/programs.md), are named in
OUT_OF_REACH and printed apart.

In bulk, each agent's `handle(event, options)` in this process (what `shellgate hook AGENT`
runs); for a sample drawn from the seed, the real hook processes, which must agree. The
figures (corpus size, how many ran in bash, how many allowed, the seed, the time taken) are
printed on one line each.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import gtfobins
import host_spellings as hs
import host_truth
import judges
import pytest
from judges import Home

import bash_sandbox

pytestmark = pytest.mark.timeout(900)

AGENTS = ("claude-code", "gemini", "copilot")
N = int(os.environ.get("SHELLGATE_HOST_CORPUS_N", "150"))
SAMPLE = 6
SEED = int(os.environ.get("SHELLGATE_HOST_CORPUS_SEED") or random.SystemRandom().randrange(1 << 32))
RULE_SETS = ("forbidden alone", "hosts allowed")
IDENTITY = "[user]\n\tname = A U Thor\n\temail = author@example.com\n"  # as host_truth's HOME
STARTED = time.monotonic()
# Out of reach by design (docs/programs.md, "Out of reach"): code in a file that was there
# before the command (here the scaffolding wrote it, not the script; a file the script itself
# writes and then runs is judged). Allowed, printed apart, never failed; any other allow fails.
_FILES = "runs code from a file that was there before the command"
OUT_OF_REACH = {
    "fixed:make": f"{_FILES} (the project's own Makefile)",
}


def _named(s: hs.HostSpelling) -> str:
    return s.source if s.source.startswith("gtfobins:") else f"{s.source}:{s.text}"


@dataclass
class Case:
    spelling: hs.HostSpelling
    ran: bool  # the forbidden command ran in real bash


def _show(s: hs.HostSpelling) -> str:
    return f"{s.text!r} [{s.source}; {', '.join(s.kinds) or s.host}]"


def _corpus_spellings() -> list[hs.HostSpelling]:
    derived = [hs.HostSpelling("rm", d.program, d.text, "", f"gtfobins:{d.program}#{d.index}")
               for d in gtfobins.spellings(" ".join(hs.TARGETS["rm"]))]  # fmt: skip
    out: dict[tuple[str, str], hs.HostSpelling] = {}
    for s in hs.fixed() + derived + hs.generate(N, SEED):
        out.setdefault((s.text, s.scaffold), s)
    return list(out.values())


@pytest.fixture(scope="module")
def corpus() -> list[Case]:
    bash_sandbox.require_sandbox(
        lambda scripts, timeout: host_truth.host_runs([("", s) for s in scripts], timeout=timeout)
    )
    spellings = _corpus_spellings()
    print(f"\nhost-program corpus: seed {SEED} (SHELLGATE_HOST_CORPUS_SEED={SEED} to reproduce)")
    t0 = time.monotonic()
    ran = host_truth.host_runs([(hs.scaffold(s.scaffold, s.target), s.text) for s in spellings])
    print(f"host-program corpus: bash ran {len(spellings)} scripts in "
          f"{time.monotonic() - t0:.1f} s")  # fmt: skip
    return [Case(s, host_truth.ran_target(r, hs.TARGETS[s.target]))
            for s, r in zip(spellings, ran, strict=True)]  # fmt: skip


@dataclass
class Judged:
    case: Case
    rule_set: str
    hooks: dict[str, str]  # agent -> allow/deny/ask/quiet
    home: Home
    cwd: Path


def _workspace(home: Home, scaffold: str, target: str) -> Path:
    ws = home.root / f"ws-{scaffold or 'plain'}-{target}"
    if not ws.exists():
        ws.mkdir()
        for name in ("x", "y"):
            (ws / name).write_text("keep\n")
        text = hs.scaffold(scaffold, target)
        if text:
            subprocess.run(["bash", "-c", text], cwd=ws, env=home.env(), check=True,
                           capture_output=True, timeout=120)  # fmt: skip
    return ws


@pytest.fixture(scope="module")
def judged(corpus: list[Case], make_home: Callable[[str | None], Home]) -> Iterator[list[Judged]]:
    """Every case bash ran, through the three hooks under both rule sets, in bulk."""
    t0 = time.monotonic()
    hosts = {c.spelling.host for c in corpus}
    flags_home = make_home(None)
    flags = {a: judges.installed_flags(flags_home, a) for a in AGENTS}
    out: list[Judged] = []
    for rule_set in RULE_SETS:
        text = hs.rules(hosts if rule_set == "hosts allowed" else None)
        homes: dict[bool, Home] = {}
        groups: dict[tuple[bool, str, str], list[Case]] = {}
        for c in corpus:
            if c.ran:
                own_home = c.spelling.scaffold.startswith("global")  # writes ~/.gitconfig
                groups.setdefault((own_home, c.spelling.scaffold, c.spelling.target), []).append(c)
        for (own_home, scaffold, target), cases in sorted(groups.items()):
            if own_home or False not in homes:
                home = make_home(text)
                (home.home / ".gitconfig").write_text(IDENTITY)
                if not own_home:
                    homes[False] = home
            else:
                home = homes[False]
            ws = _workspace(home, scaffold, target)
            verdicts = judges.hook_verdicts(home, ws, [c.spelling.text for c in cases], flags)
            out += [Judged(c, rule_set, v, home, ws) for c, v in zip(cases, verdicts, strict=True)]
    print(f"\nhost-program corpus: judged {len(out)} (spelling, rule set) pairs by "
          f"{len(AGENTS)} hooks in {time.monotonic() - t0:.1f} s; hooks installed with: "
          + "; ".join(f"{a} {' '.join(f)}" for a, f in flags.items()))  # fmt: skip
    yield out


def test_the_host_programs_are_installed() -> None:
    """Skipped programs would quietly shrink the corpus: CI installs them all (.ci/run)."""
    needed = {s.host for s in hs.fixed()} | {host for host, _, _ in hs.OPTIONS}
    missing = sorted(n for n in needed if shutil.which(n) is None)
    if missing:
        why = f"host programs not installed (.ci/run installs them): {missing}"
        (pytest.fail if os.environ.get("CI") else pytest.skip)(why)


def test_bash_runs_every_named_spelling_and_most_of_the_corpus(
    corpus: list[Case], capsys: pytest.CaptureFixture[str]
) -> None:
    missed = [c for c in corpus if not c.ran]
    by_source = Counter(c.spelling.source.split(":")[0] for c in corpus)
    ran_by = Counter(c.spelling.source.split(":")[0] for c in corpus if c.ran)
    with capsys.disabled():
        print(
            f"\nhost-program corpus: seed {SEED}: {len(corpus)} spellings ("
            + ", ".join(f"{k} {ran_by[k]}/{v}" for k, v in sorted(by_source.items()))
            + f" ran the forbidden command in bash); {len(missed)} did not (listed with -s)"
        )
    for c in missed:
        print(f"  did not run: {_show(c.spelling)}")
    named = [_show(c.spelling) for c in missed if c.spelling.source in ("issue 24", "fixed")]
    assert not named, f"issue 24's spellings and their siblings bash did not run: {named}"
    assert len(missed) < len(corpus) / 3, f"seed {SEED}: mostly duds"


def test_no_hook_allows_what_bash_ran(
    corpus: list[Case], judged: list[Judged], capsys: pytest.CaptureFixture[str]
) -> None:
    every = [j for j in judged if any(v.startswith("allow") for v in j.hooks.values())]
    allowed = [j for j in every if _named(j.case.spelling) not in OUT_OF_REACH]
    reach = sorted(
        {_named(j.case.spelling) for j in every} - {_named(j.case.spelling) for j in allowed}
    )
    ran = sum(c.ran for c in corpus)
    per = Counter((j.rule_set, a, v) for j in allowed for a, v in j.hooks.items()
                  if v.startswith("allow"))  # fmt: skip
    spellings = {j.case.spelling.text for j in allowed}
    line = (f"host-program corpus: seed {SEED}: {len(corpus)} spellings, {ran} ran the forbidden "
            f"command in bash, allowed: {len(spellings)} spellings"
            + (" (" + ", ".join(f"{r}/{a}/{v} {n}" for (r, a, v), n in sorted(per.items()))
               + ")"
               if per else "")
            + f"; {time.monotonic() - STARTED:.0f} s so far")  # fmt: skip
    with capsys.disabled():
        print("\n" + line)
        print(
            f"host-program corpus: also allowed, named out of reach: {len(reach)} of "
            f"{len(OUT_OF_REACH)}" + "".join(f"\n  {k}: {OUT_OF_REACH[k]}" for k in reach)
        )
    if allowed:
        shown = sorted(
            {
                f"  {j.rule_set}: {_show(j.case.spelling)}: "
                + ", ".join(f"{a} {v}" for a, v in j.hooks.items())
                for j in allowed
            }
        )
        pytest.fail(line + "\n" + "\n".join(shown[:80]), pytrace=False)


def test_the_hook_processes_agree(judged: list[Judged]) -> None:
    """A sample, as the agents run the hook: the command `hook install` wrote, the event on
    stdin. Its answers are the bulk ones; none allows."""
    rng = random.Random(SEED)
    sample = rng.sample(judged, min(SAMPLE, len(judged)))
    commands: dict[tuple[Path, str], str] = {}
    differ, allowed = [], []
    for j in sample:
        for agent in AGENTS:
            key = (j.home.root, agent)
            if key not in commands:
                commands[key] = judges.installed_hook(j.home, agent)
            said = judges.labelled(agent, judges.hook_answer(
                j.home, agent, j.case.spelling.text, commands[key], cwd=j.cwd))  # fmt: skip
            if said != j.hooks[agent]:
                differ.append((agent, j.case.spelling.text, said, j.hooks[agent]))
            if said.startswith("allow") and _named(j.case.spelling) not in OUT_OF_REACH:
                allowed.append(f"  {j.rule_set}: {agent}: {_show(j.case.spelling)}")
    assert not differ, f"seed {SEED}: the process and handle() disagree: {differ}"
    if allowed:
        pytest.fail(f"seed {SEED}: allowed by a hook process:\n" + "\n".join(allowed), False)
