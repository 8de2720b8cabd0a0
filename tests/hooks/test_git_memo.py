"""The hook's decision memo and git's configuration files: a decision on a command that runs
git depends on the aliases and commands git's files hold for the cwd, so an alias written
into `.git/config` after a first `git x` was allowed must be judged anew (the real hook
process, twice, with the memo on)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agents import Home


def _hook(home: Home, command: str) -> dict[str, object]:
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(home.ws),
             "session_id": "s1", "tool_input": {"command": command}}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", "claude-code"],
                          input=json.dumps(event), env=home.env(GIT_CONFIG_NOSYSTEM="1"),
                          cwd=home.ws, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode in (0, 2), done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {"blocked": done.stderr}


def _decision(answer: dict[str, object]) -> str:
    out = answer.get("hookSpecificOutput")
    return str(out.get("permissionDecision")) if isinstance(out, dict) else str(answer)


def test_a_changed_git_config_is_judged_anew(home: Home) -> None:
    home.rules('prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
               'prefix_rule(pattern=["git"], decision="allow")\n')  # fmt: skip
    subprocess.run(["git", "init", "-q", str(home.ws)], check=True, env=home.env())
    assert _decision(_hook(home, "git x")) == "allow"
    assert _decision(_hook(home, "git x")) == "allow"  # kept in the memo
    config = Path(home.ws) / ".git" / "config"
    config.write_text(config.read_text() + "[alias]\n\tx = !rm -rf build\n")
    answer = _hook(home, "git x")
    assert _decision(answer) == "deny", answer
    assert "git runs `rm -rf build` (alias `x`, from" in json.dumps(answer)
    # and in ~/.gitconfig
    (Path(home.home) / ".gitconfig").write_text("[alias]\n\ty = !rm -rf build\n")
    assert _decision(_hook(home, "git y")) == "deny"


def test_an_included_file_changed_is_judged_anew(home: Home) -> None:
    home.rules('prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n')
    subprocess.run(["git", "init", "-q", str(home.ws)], check=True, env=home.env())
    (Path(home.home) / ".gitconfig").write_text("[include]\n\tpath = inc.cfg\n")
    inc = Path(home.home) / "inc.cfg"
    inc.write_text("[alias]\n\tz = status\n")
    assert _decision(_hook(home, "git z")) != "deny"
    assert _decision(_hook(home, "git z")) != "deny"
    inc.write_text("[alias]\n\tz = !rm -rf build\n")
    assert _decision(_hook(home, "git z")) == "deny"
