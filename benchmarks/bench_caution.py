"""The cost of caution (issue 18): how many ordinary agent commands now get a question (or a
refusal) they did not get before, now that ShellGate as the gate judges every command bash runs
(approval.beyond) beside Codex's own requirement.

Corpora:
  1. the "ordinary" tier of the differential test's generator (tests/shell/bash_oracle.py, the
     plain-script corpus of ../shared/recipes/bridges/bashlex: 1 to 5 commands agents commonly
     run, about 12 % of them not plain: redirections, `$HOME`, heredocs, `for`, `if`), seeds 2
     and 3;
  2. every command in tests/replay/fixtures (real bash, zsh, fish histories; Codex, Claude
     Code, Gemini CLI and ShellGate transcripts).

Each command is decided under Codex's default (on-request, workspace-write) and as a hook with
no sandbox (on-request, danger-full-access), with no rules and with examples/policy's rules.
"Extra" counts the commands where Codex's requirement runs it unasked (skip) and ShellGate's
asks or refuses; the target is under 2 %. With `--list`, each extra command and the reason.

Usage: .venv/bin/python benchmarks/bench_caution.py [--n 2000] [--list]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from shellgate.approval.beyond import beyond_codex
from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.requirement import Skip, create_exec_approval_requirement
from shellgate.replay.model import ReadStats
from shellgate.replay.sources import Source, read_sources
from shellgate.rules.loader import load_policy
from shellgate.rules.policy import Policy

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0


def ordinary(n: int) -> list[str]:
    sys.path[:0] = [str(ROOT / "tests" / "shell"), str(ROOT / "tests")]  # bash_oracle, its helper
    import bash_oracle  # the differential test's generator

    out: list[str] = []
    for seed in (2, 3):
        out += [s.text for s in bash_oracle.generate(n, seed) if s.tier == "ordinary"]
    return out


def fixtures() -> list[str | tuple[str, ...]]:
    base = ROOT / "tests" / "replay" / "fixtures"
    sources = [
        Source("bash", str(base / "bash" / ".bash_history")),
        Source("bash", str(base / "bash-timestamps" / ".bash_history")),
        Source("zsh", str(base / "zsh" / ".zsh_history")),
        Source("fish", str(base / "fish" / "fish_history")),
        Source("codex", str(base / "codex")),
        Source("claude-code", str(base / "claude")),
        Source("gemini", str(base / "gemini")),
        Source("shellgate", str(base / "shellgate")),
    ]
    return [c.command for c in read_sources(sources, ReadStats())]


def policies() -> dict[str, Policy]:
    files = sorted(str(p) for p in (ROOT / "examples" / "policy").rglob("*.rules"))
    return {"no rules": Policy(), "examples/policy": load_policy(files)}


CONTEXTS = {
    "on-request, workspace-write": ExecContext(
        approval_policy=ApprovalPolicy.parse("on-request"), sandbox=SandboxMode.WORKSPACE_WRITE
    ),
    "on-request, no sandbox (hook)": ExecContext(
        approval_policy=ApprovalPolicy.parse("on-request"),
        sandbox=SandboxMode.DANGER_FULL_ACCESS,
    ),
}


def extra(
    commands: list[str | tuple[str, ...]], policy: Policy, context: ExecContext
) -> list[tuple[str | tuple[str, ...], str]]:
    found = []
    for command in commands:
        argv = ["bash", "-lc", command] if isinstance(command, str) else list(command)
        codex = create_exec_approval_requirement(argv, context, policy)
        beyond = beyond_codex(argv, codex, context, policy)
        asks = beyond is not None and not isinstance(beyond.requirement, Skip)
        if isinstance(codex, Skip) and beyond is not None and asks:
            found.append((command, beyond.reason))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="scripts generated per seed")
    parser.add_argument("--list", action="store_true", help="print each extra command")
    args = parser.parse_args()
    corpora: dict[str, list[str | tuple[str, ...]]] = {
        "ordinary (bash_oracle, seeds 2+3)": list(ordinary(args.n)),
        "tests/replay/fixtures": fixtures(),
    }
    worst = 0.0
    for corpus, commands in corpora.items():
        print(f"{corpus}: {len(commands)} commands")
        for pname, policy in policies().items():
            for cname, context in CONTEXTS.items():
                found = extra(commands, policy, context)
                share = 100.0 * len(found) / max(len(commands), 1)
                worst = max(worst, share)
                print(f"  {pname:16} {cname:30} extra questions: {len(found):4} ({share:.2f} %)")
                if args.list:
                    why = Counter(reason.split(":")[0] for _, reason in found)
                    for command, reason in found:
                        print(f"      {command!r}: {reason}")
                    print(f"      reasons: {dict(why)}")
    verdict = "ok" if worst < TARGET else "MISSED"
    print(f"largest share: {worst:.2f} % (target < {TARGET:.0f} %: {verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
