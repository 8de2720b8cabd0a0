"""`shellgate replay` on a fixed history agrees with `shellgate import --history`'s round
trip: each tool's settings imported with --write into a fresh CODEX_HOME, then both real
processes run on the same history under the round trip's approval policy (untrusted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "replay" / "fixtures"
HISTORY = "git status\ngit status --short\nsed -n 1p README.md\nrm -rf build\nnpm test\nls -la\n"
SETTINGS = {
    "claude-code": (
        "settings.json",
        '{"permissions": {"allow": ["Bash(git status:*)", "Bash(npm test)", "Bash(sed:*)"],\n'
        ' "deny": ["Bash(rm:*)"]}}\n',
    ),
    "gemini": (
        "policy.toml",
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["git status", "npm test"]\n'
        'decision = "allow"\npriority = 100\n\n[[rule]]\ntoolName = "run_shell_command"\n'
        'commandPrefix = "rm"\ndecision = "deny"\npriority = 200\n',
    ),
    "vscode": (
        "settings.json",
        '{"chat.tools.terminal.autoApprove": {"git status": true, "npm test": true, '
        '"rm": false, "sed": true}}\n',
    ),
}
_KIND = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}


def _shellgate(*args: str, cwd: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", *args], cwd=cwd, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("tool", sorted(SETTINGS))
def test_replay_agrees_with_round_trip(tool: str, tmp_path: Path) -> None:
    home, work = tmp_path / "codex", tmp_path / "work"
    (home / "rules").mkdir(parents=True)
    work.mkdir()
    name, text = SETTINGS[tool]
    settings = tmp_path / name
    settings.write_text(text, encoding="utf-8")
    history = tmp_path / ".bash_history"
    history.write_text(HISTORY, encoding="utf-8")
    sources = [str(history), str(FIXTURES / "claude"), str(FIXTURES / "gemini")]
    target = home / "rules" / "imported.rules"
    common = ["--codex-home", str(home), "--format", "json"]
    imported = _shellgate("import", tool, str(settings), "--write", str(target),
                          "--cwd", str(work), *common, "--history", *sources, cwd=work)  # fmt: skip
    assert imported["written"], imported
    replayed = _shellgate("replay", *sources, "--approval-policy", "untrusted", *common, cwd=work)
    theirs = {d["command"]: _KIND[d["outcome"]] for d in replayed["decisions"]}
    mine = {r["command"]: r["shellgate_decision"] for r in imported["round_trip"]
            if r["from"] == "history"}  # fmt: skip
    assert set(mine) == set(theirs)
    assert len(mine) >= len(HISTORY.splitlines())
    assert mine == theirs
    # The imported entries are exercised: an allow, and `rm` (VS Code's `false` only stops
    # auto-approval: ask).
    assert theirs["git status --short"] == "allow"
    assert theirs["rm -rf build"] == ("ask" if tool == "vscode" else "deny")
