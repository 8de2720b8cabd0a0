"""git's hand-overs through each hook as the agents run it (a process, the default `hook
install` for Claude Code and Gemini CLI, `shellgate hook copilot` for Copilot CLI), under the
two rule sets of issue 24: `rm` forbidden alone, and with `git` allowed too. A literal command
git runs is denied; one decided at run time is never allowed; `git status` is answered as
before."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest
from agents import Home

RM_ONLY = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
WITH_GIT = RM_ONLY + 'prefix_rule(pattern=["git"], decision="allow")\n'
EVENTS = {
    "claude-code": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
    "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"},
    "copilot": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
}


def _command(home: Home, agent: str) -> list[str]:
    if agent == "copilot":
        return [sys.executable, "-m", "shellgate", "hook", "copilot"]
    folder = ".claude" if agent == "claude-code" else ".gemini"
    settings = json.loads((home.home / folder / "settings.json").read_text())
    group = settings["hooks"][EVENTS[agent]["hook_event_name"]][-1]
    return shlex.split(group["hooks"][0]["command"])


def _verdict(home: Home, agent: str, command: str) -> tuple[str, str]:
    event = {**EVENTS[agent], "cwd": str(home.ws), "session_id": "s",
             "tool_input": {"command": command}}  # fmt: skip
    done = subprocess.run(_command(home, agent), input=json.dumps(event), cwd=home.ws,
                          env=home.env(GIT_CONFIG_NOSYSTEM="1"), capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    if done.returncode == 2:
        return "block", done.stderr
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    if agent == "gemini":
        return out["decision"], out.get("reason", "")
    specific = out["hookSpecificOutput"]
    return specific["permissionDecision"], specific.get("permissionDecisionReason", "")


@pytest.fixture
def installed(home: Home) -> Home:
    home.install("claude-code")
    home.install("gemini")
    subprocess.run(["git", "init", "-q", str(home.ws)], check=True, env=home.env())
    return home


@pytest.mark.parametrize("rules", [RM_ONLY, WITH_GIT], ids=["rm-forbidden", "git-allowed-too"])
@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_each_hook(installed: Home, agent: str, rules: str) -> None:
    installed.rules(rules)
    verdict, reason = _verdict(installed, agent, "git -c alias.x='!rm -rf build' x")
    assert verdict == "deny", reason
    assert "git runs `rm -rf build` (alias `x`, set by -c)" in reason
    verdict, reason = _verdict(installed, agent, "git -c core.hooksPath=./h commit -m x")
    assert verdict != "allow", reason
    verdict, reason = _verdict(installed, agent, "git status")
    assert "git runs" not in reason and "decides this command at run time" not in reason
    # as before: allowed (in the sandbox of the default install, or by the rule), or asked by
    # Copilot CLI's hook, which has no sandbox, when no rule allows it
    assert verdict == "allow" or (agent == "copilot" and rules == RM_ONLY), reason
