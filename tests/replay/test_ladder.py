"""The "don't ask again" ladder on a fixed history; the rule it writes loads in the real Codex
binary (`codex execpolicy check`), whose check of its match / not_match examples passes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import realtools
from shellgate.approval.amendments import allow_rung
from shellgate.approval.context import ApprovalPolicy, ExecContext
from shellgate.codexconfig.layers import LayerKind, RulesLayer, load_layers
from shellgate.replay.coverage import CoverageIndex
from shellgate.replay.ladder import ladder
from shellgate.replay.model import HistoryCommand
from shellgate.rules.policy import Policy

HISTORY = ["git push origin main"] * 3 + ["git push --tags", "git push origin feature",
                                          "git status", "git fetch", "git push origin main && ls"]
UNTRUSTED = ExecContext(approval_policy=ApprovalPolicy.parse("untrusted"))


def index(lines: list[str]) -> CoverageIndex:
    return CoverageIndex(HistoryCommand(c, "bash", "h", i) for i, c in enumerate(lines, 1))


def test_rungs_narrow_to_broad_with_counts(tmp_path: Path) -> None:
    target = str(tmp_path / "rules" / "default.rules")
    rungs = ladder("git push origin main", ("git", "push", "origin", "main"), Policy(),
                   UNTRUSTED, target=target, history=index(HISTORY))
    assert [(r.kind, r.pattern) for r in rungs] == [
        ("codex", ("git", "push", "origin", "main")), ("family", ("git", "push")),
        ("program", ("git",))]
    codex, family, program = rungs
    # Under untrusted every one of them asked; `… && ls` still asks for `ls`: no rung counts it.
    assert (codex.allowed, codex.asked_before) == (3, 3)
    assert (family.allowed, family.asked_before) == (5, 5)
    assert (program.allowed, program.asked_before) == (7, 7)
    assert ("git", "push", "origin", "main", "--force") in [v.argv for v in codex.admits]
    assert ("git", "push", "--force") in [v.argv for v in family.admits]
    assert ("git", "reset", "--hard") in [v.argv for v in program.admits]
    assert codex.match == ("git", "push", "origin", "main")
    assert ("git", "push", "--force") in codex.not_match
    assert all(v not in family.not_match for v in [("git", "push", "--force")])
    assert program.not_match == ()
    assert all(r.target == target for r in rungs)


def test_no_amendment_no_ladder_and_no_program_wide_interpreters() -> None:
    assert ladder("rm -rf x", None, Policy(), UNTRUSTED, target="t") == ()
    rungs = ladder("python3 -m pytest -q", ("python3", "-m", "pytest", "-q"), Policy(),
                   UNTRUSTED, target="t")
    assert [r.kind for r in rungs] == ["codex"]  # `-m` is no subcommand; python3 never whole
    assert rungs[0].allowed == 0  # no history given


def test_counts_respect_stricter_rules(tmp_path: Path) -> None:
    rules = tmp_path / "t.rules"
    rules.write_text('prefix_rule(pattern=["git", "push", "--tags"], decision="forbidden")\n')
    policy = load_layers([RulesLayer(LayerKind.CLI, None, (str(rules),))])
    family = ladder("git push origin main", ("git", "push", "origin", "main"), policy,
                    UNTRUSTED, target="t", history=index(HISTORY))[1]
    assert family.allowed == 4  # `git push --tags` stays forbidden


def codex_check(
    codex: Path, home: Path, rules: Path, *argv: str
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home)}
    return subprocess.run(["unshare", "-rn", str(codex), "execpolicy", "check", "--rules",
                           str(rules), *argv], capture_output=True, text=True, env=env,
                          timeout=60, cwd=home)


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_the_written_rule_loads_in_real_codex(tmp_path: Path, version: str) -> None:
    codex = realtools.codex(version)
    target = tmp_path / "home" / "rules" / "default.rules"
    target.parent.mkdir(parents=True)
    target.write_text('prefix_rule(pattern=["rm"], decision="forbidden")')  # no final newline
    rungs = ladder("git push origin main", ("git", "push", "origin", "main"), Policy(),
                   UNTRUSTED, target=str(target), history=index(HISTORY))
    for rung in rungs[:2]:
        assert allow_rung(rung).added is True
    again = allow_rung(rungs[0])
    assert again.ok and again.added is False  # the identical line is not written twice
    lines = target.read_text().splitlines()
    assert lines[0] == 'prefix_rule(pattern=["rm"], decision="forbidden")'
    assert lines[1:] == [rungs[0].line, rungs[1].line]
    assert 'not_match=[["git", "push", "origin", "--delete", "main"]' in lines[1]
    done = codex_check(codex, tmp_path / "home", target, "git", "push", "origin", "main")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decision"] == "allow"
    forced = codex_check(codex, tmp_path / "home", target, "git", "push", "--force")
    assert json.loads(forced.stdout)["decision"] == "allow"  # the family rung admits it


def test_a_rule_codex_would_reject_is_never_written(tmp_path: Path) -> None:
    from dataclasses import replace

    target = tmp_path / "default.rules"
    rung = ladder("git push origin main", ("git", "push", "origin", "main"), Policy(),
                  UNTRUSTED, target=str(target))[1]
    bad = replace(rung, not_match=(("git", "push", "--force"),))  # the rule matches it
    refused = allow_rung(bad)
    assert refused.line is None and (refused.failure or "").startswith("refusing to write")
    assert not target.exists() or target.read_text() == ""
    assert not os.path.exists(tmp_path / "rules")


def test_shellgate_run_climbs_the_ladder_on_the_terminal(tmp_path: Path) -> None:
    """`shellgate run` in a terminal: "p", then rung 2 (the subcommand family); the rule is
    appended with its examples, and the real Codex loads the file."""
    import sys

    from shellgate.exec.probe import probe_sandbox

    if not probe_sandbox().ok:
        pytest.skip("no working sandbox on this machine")
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / "codex").mkdir(parents=True)
    ws.mkdir()
    (home / ".bash_history").write_text("git init -q\ngit init -q\ngit init --bare x\ngit log\n")
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / "codex"),
           "XDG_CACHE_HOME": str(home / ".cache")}
    for var in ("HISTFILE", "ZDOTDIR", "XDG_DATA_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR",
                "GEMINI_CLI_HOME", "SHELLGATE_REPLAY"):
        env.pop(var, None)
    done = subprocess.run([sys.executable, "-m", "shellgate", "run", "--approval-policy",
                           "untrusted", "--", "git", "init", "-q"], cwd=ws, env=env,
                          input="p\n2\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Don't ask again for:" in done.stderr
    assert ("1. git init -q … (this command (Codex's proposal)): would have allowed 2 past "
            "commands, 2 of which asked") in done.stderr
    assert "2. git init … (the subcommand family): would have allowed 3 past commands" \
        in done.stderr
    assert "3. git … (the whole program)" in done.stderr and "`git push --force`" in done.stderr
    written = (home / "codex" / "rules" / "default.rules").read_text()
    assert written.startswith('prefix_rule(pattern=["git", "init"], decision="allow", '
                              'match=[["git", "init", "-q"]], not_match=[')
    assert '  -> prefix_rule(pattern=["git", "init"], decision="allow", match=' in done.stderr
    codex = realtools.codex()
    check = codex_check(codex, home, home / "codex" / "rules" / "default.rules",
                        "git", "init", "--bare", "y")
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["decision"] == "allow"
    # Enter takes the default, Codex's own proposal, and says which rule that is
    (home / "codex" / "rules" / "default.rules").unlink()
    done = subprocess.run([sys.executable, "-m", "shellgate", "run", "--approval-policy",
                           "untrusted", "--", "git", "init", "-q"], cwd=ws, env=env,
                          input="p\n\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = '  -> prefix_rule(pattern=["git", "init", "-q"], decision="allow")\n'
    assert said in done.stderr, done.stderr
    assert (home / "codex" / "rules" / "default.rules").read_text() == said.removeprefix("  -> ")
