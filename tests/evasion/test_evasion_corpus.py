"""Nothing a rule forbids gets past ShellGate by its spelling (issue 18): the generated corpus.

`spellings.generate` draws N spellings of five forbidden commands (rm, curl, git push, dd,
chmod; the rules forbid each) across every kind the issue lists, combined and nested, from a
seed that is fresh on each run and printed (`SHELLGATE_CORPUS_SEED=<seed>` reproduces a run;
`SHELLGATE_CORPUS_N` changes the size). Real bash runs each one first, with recording stubs
(bash_truth): that is the ground truth. Then every front end judges the same script, and no
spelling that bash ran as the forbidden program may be answered allow, or run:

- in bulk, every spelling, in this process: the `handle(event, options)` of each of the
  three hooks (`shellgate hook claude-code | gemini | codex` run exactly that code) and the
  gate decision of explain's JSON (what the hooks decide from);
- as real processes, a sample drawn from the same seed (SAMPLE spellings bash ran, spread
  over the kinds): the three hook processes fed the event JSON each agent sends,
  `shellgate explain --json`, and the MCP `shell` tool in one real MCP client session whose
  PATH is led by the same recording stubs (a refusal runs nothing; if it ran, a stub records).

The spellings bash did not run as the forbidden program (dash has no `$'...'`, `timeout`
cannot run a builtin, ...) are printed, not asserted on. One summary line gives the counts.
Cost on 2 busy cores, as measured: bash 15 to 35 s for 400 spellings, the bulk judging 10 to
20 s, the hook and explain processes about 12 s, the MCP session about 16 s; 1 to 1.5 minutes.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import bash_truth
import judges
import pytest
import spellings
from judges import Home

import bash_sandbox

pytestmark = pytest.mark.timeout(600)

N = int(os.environ.get("SHELLGATE_CORPUS_N", "400"))
SAMPLE = 12


def _seed() -> int:
    if os.environ.get("SHELLGATE_CORPUS_SEED"):
        return int(os.environ["SHELLGATE_CORPUS_SEED"])
    return random.SystemRandom().randrange(1 << 32)


SEED = _seed()


@dataclass
class Case:
    spelling: spellings.Spelling
    ran: list[tuple[str, ...]]  # every argv the stubs recorded

    @property
    def ran_forbidden(self) -> bool:
        return any(bash_truth.forbidden_program(a) == self.spelling.target for a in self.ran)


@pytest.fixture(scope="module")
def corpus() -> list[Case]:
    bash_sandbox.require_sandbox(bash_truth.bash_runs)
    drawn = spellings.generate(N, SEED)
    print(f"\nevasion corpus: seed {SEED} (SHELLGATE_CORPUS_SEED={SEED} to reproduce)")
    ran = bash_truth.bash_runs([s.text for s in drawn])
    return [Case(s, r) for s, r in zip(drawn, ran, strict=True)]


@pytest.fixture(scope="module")
def home(make_home: Callable[[str | None], Home]) -> Home:
    return make_home(spellings.RULES)


@pytest.fixture(scope="module")
def bulk(corpus: list[Case], home: Home) -> list[judges.Verdicts]:
    return judges.judge_in_process(home, [c.spelling.text for c in corpus])


@pytest.fixture(scope="module")
def sample(corpus: list[Case]) -> list[Case]:
    """SAMPLE spellings bash ran, one kind after another so that the sample spreads."""
    rng = random.Random(SEED)
    ran = [c for c in corpus if c.ran_forbidden]
    rng.shuffle(ran)
    picked: list[Case] = []
    seen: set[str] = set()
    for case in ran:
        if len(picked) == SAMPLE:
            break
        if not seen.issuperset(case.spelling.kinds):
            picked.append(case)
            seen.update(case.spelling.kinds)
    return picked + [c for c in ran if c not in picked][: SAMPLE - len(picked)]


def _show(case: Case) -> str:
    return f"{case.spelling.text!r} ({', '.join(case.spelling.kinds)})"


def test_every_kind_is_generated_each_run(corpus: list[Case]) -> None:
    used = Counter(k for c in corpus for k in c.spelling.kinds)
    assert set(used) == spellings.KINDS, (
        f"seed {SEED}: never generated: {spellings.KINDS - set(used)}"
    )
    ran = Counter(k for c in corpus if c.ran_forbidden for k in c.spelling.kinds)
    print(f"kinds ({len(used)}), bash ran / generated: "
          + ", ".join(f"{k} {ran[k]}/{used[k]}" for k in sorted(used)))  # fmt: skip


def test_the_spellings_bash_did_not_run_are_reported(
    corpus: list[Case], capsys: pytest.CaptureFixture[str]
) -> None:
    missed = [c for c in corpus if not c.ran_forbidden]
    with capsys.disabled():
        print(f"\nevasion corpus: seed {SEED}: {len(missed)} of {len(corpus)} spellings did not "
              "run the forbidden program in bash (listed with -s)")  # fmt: skip
    for case in missed:
        print(f"  {_show(case)}: ran {sorted(set(case.ran))[:4]}")
    # sanity: most spellings work, and one that did not left no record of its program either
    assert len(missed) < len(corpus) / 3, f"seed {SEED}: the generator mostly makes duds"
    assert all(bash_truth.forbidden_program(a) != c.spelling.target for c in missed for a in c.ran)


def test_no_spelling_bash_ran_is_allowed_in_bulk(
    corpus: list[Case], bulk: list[judges.Verdicts], capsys: pytest.CaptureFixture[str]
) -> None:
    ran = [(c, v) for c, v in zip(corpus, bulk, strict=True) if c.ran_forbidden]
    allowed = [(c, v.allowed_by()) for c, v in ran if v.allowed_by()]
    by = Counter(front for _, fronts in allowed for front in fronts)
    line = (f"evasion corpus: seed {SEED}: {len(corpus)} spellings generated, {len(ran)} "
            f"ran-forbidden-per-bash, allowed: {len(allowed)}")  # fmt: skip
    if by:
        line += f" ({', '.join(f'{f} {n}' for f, n in sorted(by.items()))})"
    with capsys.disabled():
        print("\n" + line)
    shown = "\n".join(f"  {_show(c)}: allowed by {', '.join(f)}" for c, f in allowed[:40])
    if allowed:
        pytest.fail(f"{line}\n{shown}", pytrace=False)


def test_the_hook_processes_agree_and_allow_none(
    sample: list[Case], bulk: list[judges.Verdicts], corpus: list[Case], home: Home
) -> None:
    in_bulk = {c.spelling.text: v for c, v in zip(corpus, bulk, strict=True)}
    allowed, differ = [], []
    for case in sample:
        text = case.spelling.text
        verdicts = in_bulk[text]
        for agent in judges.AGENTS:
            said = judges.hook_process(home, agent, text)
            if said != verdicts.hooks[agent]:
                differ.append((agent, text, said, verdicts.hooks[agent]))
            if judges.hook_allowed(agent, said, verdicts.codex_decision):
                allowed.append(f"  hook {agent}: {_show(case)}: {said}")
    assert not differ, f"seed {SEED}: the process and handle() disagree: {differ}"
    if allowed:
        pytest.fail(f"seed {SEED}: allowed by a hook process:\n" + "\n".join(allowed), False)


def test_explain_json_allows_none(sample: list[Case], home: Home) -> None:
    allowed = [
        f"  {_show(c)}: {gate}"
        for c in sample
        if (gate := judges.gate_decision(judges.explain_process(home, c.spelling.text))) == "allow"
    ]
    if allowed:
        pytest.fail(f"seed {SEED}: explain's gate allows:\n" + "\n".join(allowed), False)


def test_the_mcp_shell_tool_runs_none(sample: list[Case], home: Home) -> None:
    records = home.ws / ".records"
    records.mkdir(exist_ok=True)
    stubs = home.root / "stubs"
    # Not `bash`: the server runs `bash -lc` from PATH, and a stub there is no real bash.
    bash_truth.write_stubs(stubs, str(records),
                           [n for n in bash_truth.STUBS if n != "bash"])  # fmt: skip
    texts = [c.spelling.text for c in sample]
    statuses = asyncio.run(judges.mcp_statuses(home, texts, stubs))
    ran = [f"  {_show(c)}: {s}" for c, s in zip(sample, statuses, strict=True) if s == "ran"]
    recorded = [a for part in records.iterdir() for a in bash_sandbox.records(part.read_bytes())
                if bash_truth.forbidden_program(a)]  # fmt: skip
    if ran or recorded:
        pytest.fail(f"seed {SEED}: the MCP shell tool ran:\n" + "\n".join(ran)
                    + f"\nthe stubs recorded: {recorded}", False)  # fmt: skip
