"""The real Copilot CLI (`copilot -p`, 1.0.102) with ShellGate's hook installed by `shellgate
hook install copilot`, against the Chat Completions stand-in, offline: what ran is checked on
disk, what the model was told in the next request's tool messages."""

from __future__ import annotations

import json
import sys

import agents
from agents import RULES, Home, bash, copilot_turn

import realtools
from realclients import tool_results


def test_forbidden_blocked_allowed_sandboxed_and_no_editor(home: Home) -> None:
    copilot = realtools.copilot()
    outside, script = agents.victim_script(home)
    home.install("copilot", "--sandbox", "workspace-write")
    script += [
        {"tool_calls": [{"name": "view", "arguments": {"path": str(home.ws / "made")}}]},
        {"text": "fin"},
    ]
    result = copilot_turn(home, copilot, script)
    assert result["rc"] == 0, result["stderr"]
    told = tool_results(result["requests"][-1])
    assert len(told) == 6, told
    assert "hi" in told[5]  # a tool ShellGate does not gate: `{}`, Copilot's own rules
    assert (home.ws / "made").exists(), told[1]
    agents.told_about_victim(home, outside, told)


def test_a_failing_hook_blocks(home: Home) -> None:
    """A hook that cannot work (a fallback setting it does not know) exits 2: Copilot blocks
    (it tells the model only the exit code; the reason is on the hook's stderr)."""
    copilot = realtools.copilot()
    home.install("copilot")
    script = [bash("touch made"), {"text": "fin"}]
    result = copilot_turn(home, copilot, script, SHELLGATE_HOOK_FALLBACK="sometimes")
    told = tool_results(result["requests"][-1])
    assert not (home.ws / "made").exists()
    assert told == ["Denied by preToolUse hook: hook exited with code 2"], told


def test_rules_that_do_not_load_block(home: Home) -> None:
    agents.broken_rules_block(home, "copilot", copilot_turn, realtools.copilot())


def test_an_evasion_spelling_is_not_run(home: Home) -> None:
    """`\\rm` is `rm` to bash: the rule that forbids `rm` holds (judging what bash runs, not
    the words as written)."""
    copilot = realtools.copilot()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    home.install("copilot")
    script = [bash("\\rm -f victim"), bash("'r''m' -f victim"), {"text": "fin"}]
    result = copilot_turn(home, copilot, script)
    told = tool_results(result["requests"][-1])
    assert (home.ws / "victim").read_text() == "keep", told
    assert len(told) == 2 and all("keep the victim file" in t for t in told), told


def test_a_hand_written_camel_case_hook_is_answered_in_its_shape(home: Home) -> None:
    """Copilot's own `preToolUse` key (camelCase events, flat answers; a nested answer would
    be ignored there and the command run): deny holds, the sandbox rewrite (`modifiedArgs`)
    is what runs."""
    copilot = realtools.copilot()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    outside = home.home / "outside"
    command = f"{sys.executable} -I -m shellgate hook copilot --sandbox workspace-write"
    hooks = home.home / ".copilot" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "mine.json").write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": command, "timeoutSec": 330}]}}))  # fmt: skip
    script = [bash("rm -f victim"), bash(f"touch made {outside}"), {"text": "fin"}]
    result = copilot_turn(home, copilot, script)
    told = tool_results(result["requests"][-1])
    assert len(told) == 2, told
    assert (home.ws / "victim").read_text() == "keep" and "keep the victim file" in told[0]
    assert (home.ws / "made").exists() and not outside.exists()
    assert "Read-only file system" in told[1], told[1]


def test_a_hand_written_permission_request_hook_decides(home: Home) -> None:
    """Copilot's `permissionRequest` hook (`{"behavior": ...}`): deny holds even under
    `--allow-all-tools`; allow runs."""
    copilot = realtools.copilot()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    command = f"{sys.executable} -I -m shellgate hook copilot"
    hooks = home.home / ".copilot" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "mine.json").write_text(json.dumps({"version": 1, "hooks": {"permissionRequest": [
        {"type": "command", "bash": command, "timeoutSec": 330}]}}))  # fmt: skip
    script = [bash("rm -f victim"), bash("touch made"), {"text": "fin"}]
    result = copilot_turn(home, copilot, script)
    told = tool_results(result["requests"][-1])
    assert len(told) == 2, told
    assert (home.ws / "victim").read_text() == "keep" and "keep the victim file" in told[0]
    assert (home.ws / "made").exists(), told[1]


def test_the_project_scope_hook_in_a_trusted_folder(home: Home) -> None:
    """`--scope project` writes `.github/hooks/shellgate.json`; Copilot CLI loads it in a folder
    trusted for the session (`--trust-folder`), and `hook install` said it must be."""
    copilot = realtools.copilot()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    said = home.install("copilot", "--scope", "project")
    assert "trusted folder" in said and (home.ws / ".github/hooks/shellgate.json").exists()
    script = [bash("rm -f victim"), {"text": "fin"}]
    result = copilot_turn(home, copilot, script, "--trust-folder")
    told = tool_results(result["requests"][-1])
    assert (home.ws / "victim").read_text() == "keep"
    assert len(told) == 1 and "keep the victim file" in told[0], told
