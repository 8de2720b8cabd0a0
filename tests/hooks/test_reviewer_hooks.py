"""The real Claude Code, Gemini CLI and Copilot CLI (offline, against the stand-in) with
ShellGate's hook and Codex's auto-reviewer on (`approvals_reviewer = "auto_review"` in Codex's
config): a command that would have waited for a person (a `prompt` rule, no editor) is answered
by the reviewer, which here is the same stand-in asked with Codex's guardian request; a
reviewer that refuses or answers garbage never lets it through, and the model reads why
(Codex's words)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agents import Home, bash, claude_turn, copilot_turn, gemini_prepare, gemini_turn

import realtools
from realclients import tool_results

PORT = "@PORT@"  # the stand-in's port, known only inside the namespace: set by the wrapper


def reviewed_home(home: Home, *, in_config: bool = True) -> None:
    """`in_config`: the reviewer is turned on in Codex's config.toml, else by the hook's flag."""
    home.rules('prefix_rule(pattern=["touch"], decision="prompt", justification="look first")\n')
    (home.codex_home / "config.toml").write_text(
        ('approvals_reviewer = "auto_review"\n' if in_config else "")
        + 'model = "stand-in"\nmodel_provider = "standin"\n'
        f'[model_providers.standin]\nbase_url = "http://127.0.0.1:{PORT}/v1"\n'
        'wire_api = "responses"\n')


def wrapped(turn: Any, home: Home, cli: Path, script: list[dict[str, Any]]) -> dict[str, Any]:
    """The turn, with config.toml's port filled in once the stand-in listens."""
    config = home.codex_home / "config.toml"
    shim = home.root / "cli-shim"
    shim.write_text(f'#!/bin/sh\nsed -i "s/{PORT}/$SG_PORT/" {config}\nexec {cli} "$@"\n')
    shim.chmod(0o755)
    return turn(home, shim, script, SG_PORT="{PORT}")  # type: ignore[no-any-return]


ALLOW = {"text": '{"outcome": "allow", "risk_level": "low"}'}
# The reviewer's script (Codex's tries: 3 answers; HTTP retries; a dropped stream retried), what
# ran, and the first line the model reads. The slow one has a deadline of 1.5 s (`[auto_review]
# timeout_ms`), and is refused on time.
VERDICTS = {
    "allows": ([ALLOW], True, None),
    "denies": ([{"text": '{"outcome": "deny", "rationale": "not asked for"}'}], False,
               "This action was rejected due to unacceptable risk.\nReason: not asked for"),
    "garbage": ([{"text": "no json at all"}] * 3, False,
                "guardian assessment was not valid JSON"),
    "errs": ([{"status": 500, "body": "reviewer exploded"}] * 12, False,
             "Automatic approval review failed: We\u2019re currently experiencing high demand"),
    "drops": ([{"cut": True}] * 4, False,
              "Automatic approval review failed: stream disconnected before completion"),
    "slow": ([{"delay_ms": 4000, **ALLOW}], False,
             "The automatic permission approval review did not finish"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_claude_code_s_question_goes_to_the_reviewer(home: Home, name: str) -> None:
    steps, ran, told = VERDICTS[name]
    claude = realtools.claude()
    home.install("claude-code")
    reviewed_home(home)
    if name == "slow":
        with (home.codex_home / "config.toml").open("a") as config:
            config.write("[auto_review]\ntimeout_ms = 1500\n")
    script = [bash("touch made"), *steps, {"text": "fin"}]
    result = wrapped(claude_turn, home, claude, script)
    assert result["rc"] == 0, result["stderr"]
    assert (home.ws / "made").exists() is ran  # a broken or slow reviewer never lets it run
    said = tool_results(result["requests"][-1])
    if told:
        assert any(told in t for t in said), said
    guardian = [r for r in result["log"] if "x-openai-subagent" in r.get("headers", [])]
    assert len(guardian) == len(steps), "the reviewer was not asked as Codex asks it"


def test_gemini_s_question_goes_to_the_reviewer(home: Home) -> None:
    gemini = realtools.gemini()
    gemini_prepare(home)
    home.install("gemini", "--approve-for-me")  # the flag goes into the installed command
    reviewed_home(home, in_config=False)
    script = [bash("touch made"), {"text": '{"outcome": "allow"}'}, {"text": "fin"}]
    result = wrapped(gemini_turn, home, gemini, script)
    assert (home.ws / "made").exists(), result["stderr"][-2000:]
    assert "--approve-for-me" in (home.home / ".gemini" / "settings.json").read_text()
    assert [r for r in result["log"] if "x-openai-subagent" in r.get("headers", [])]


def test_copilot_s_question_goes_to_the_reviewer(home: Home) -> None:
    copilot = realtools.copilot()
    home.install("copilot", "--sandbox", "workspace-write")
    reviewed_home(home)
    script = [bash("touch made"), {"text": '{"outcome": "deny", "rationale": "no need"}'},
              {"text": "fin"}]
    result = wrapped(copilot_turn, home, copilot, script)
    assert result["rc"] == 0, result["stderr"][-2000:]
    assert not (home.ws / "made").exists()
    said = tool_results(result["requests"][-1])
    assert any("Reason: no need" in t for t in said), said


def test_a_question_with_no_reviewer_configured_loads_no_reviewer(home: Home) -> None:
    """The hook's question path (no sandbox, no editor: the agent's prompt) reads whether a
    reviewer is on from the config files' text; without one, neither the reviewer nor httpx is
    imported (they cost ~75 ms a question)."""
    home.rules('prefix_rule(pattern=["touch"], decision="prompt")\n')
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                        "cwd": str(home.ws), "session_id": "s",
                        "tool_input": {"command": "touch made"}})  # fmt: skip
    argv = [sys.executable, "-X", "importtime", "-m", "shellgate", "hook", "claude-code"]
    done = subprocess.run(argv, input=event, capture_output=True, text=True, env=home.env(),
                          cwd=home.ws)  # fmt: skip
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "httpx" not in loaded and "shellgate.answer.reviewer" not in loaded
    (home.codex_home / "config.toml").write_text('approvals_reviewer = "user"\n')
    done = subprocess.run(argv, input=event, capture_output=True, text=True, env=home.env(),
                          cwd=home.ws)  # fmt: skip
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "shellgate.answer.stage" in loaded  # named: read as Codex reads it
    assert "httpx" not in loaded  # "user": nobody reviews
