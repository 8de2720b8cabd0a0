"""The source tools themselves: what the real Claude Code and Gemini CLI do with an
allowlist, checked on disk, against what the importer says they do (its round trip's source
column). Each runs once, offline (`unshare -rn`, a stand-in model on 127.0.0.1 for Claude
Code, Gemini's own `--fake-responses` file), with several shell calls in one model turn."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import realtools
from realclients import dump, run_client
from shellgate.importers import claude_code, gemini
from shellgate.importers.model import Kind, Tool
from shellgate.importers.roundtrip import source_decision
from shellgate.importers.run import run_import

from .helpers import write

CLAUDE_SETTINGS = """\
{
  "permissions": {
    "allow": ["Bash(touch a:*)", "Bash(mkdir x)", "Bash(touch d *)"],
    "deny": ["Bash(touch c:*)"]
  }
}
"""
# (command, the file it creates when it runs)
CLAUDE_COMMANDS = [
    ("touch a", "a"),
    ("touch a b2", "b2"),
    ("touch ab", "ab"),
    ("mkdir x", "x"),
    ("mkdir x y", "y"),
    ("touch d", "d"),
    ("touch dd", "dd"),
    ("touch c", "c"),
    ("timeout 5 touch c", "c"),
    ("FOO=1 touch c", "c"),
    ("touch c3", "c3"),
    ("touch p", "p"),  # allowed only by the untrusted project's settings
]


def _claude_turn(claude: Path, work: Path, commands: list[str]) -> list[dict[str, Any]]:
    """One `claude -p` run in `work/ws` (HOME `work/home`) whose model calls Bash with every
    command in one turn: the messages of its last main-loop request."""
    home = work / "home"
    client = (
        f'cd "{work / "ws"}" && ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" '
        f'timeout 120 {claude} -p "Run the commands." --output-format stream-json --verbose'
    )
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "ANTHROPIC_API_KEY": "dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1"}
    calls = [{"name": "Bash", "arguments": {"command": c}} for c in commands]
    rc, log = run_client(work / "run", [{"tool_calls": calls}, {"text": "done"}], client, env,
                         timeout=180)  # fmt: skip
    assert rc == 0, dump(work / "run")
    messages: list[dict[str, Any]] = [r["body"] for r in log if r["kind"] == "main"][-1]["messages"]
    return messages


def test_claude_code_decides_as_the_importer_says(tmp_path: Path) -> None:
    claude = realtools.claude()
    settings = write(tmp_path / "home" / ".claude" / "settings.json", CLAUDE_SETTINGS)
    project = write(
        tmp_path / "ws" / ".claude" / "settings.json",
        '{"permissions": {"allow": ["Bash(touch p:*)"]}}',
    )
    messages = _claude_turn(claude, tmp_path, [c for c, _ in CLAUDE_COMMANDS])
    results = [b for m in messages if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result"]  # fmt: skip
    assert len(results) == len(CLAUDE_COMMANDS)
    source = claude_code.read([settings])
    # Claude Code ignores an untrusted project's allow entries; the importer says so.
    *checked, (_, untrusted) = zip(CLAUDE_COMMANDS, results, strict=True)
    assert "needs approval" in json.dumps(untrusted["content"])
    assert any("until the workspace is trusted" in n for n in claude_code.read([project]).notes)
    for (command, _), result in checked:
        expected, _ = source_decision(source, command)
        text = json.dumps(result["content"])
        if expected is Kind.ALLOW:
            assert result.get("is_error") is not True, (command, text)
        elif expected is Kind.DENY:
            assert "has been denied" in text, (command, text)
        else:  # asked: in -p with no one to ask, Claude Code refuses with "needs approval"
            assert "needs approval" in text, (command, text)
    ran = sorted(p.name for p in (tmp_path / "ws").iterdir() if p.name != ".claude")
    assert ran == ["a", "b2", "d", "x"]  # on disk: only what the importer calls allow


GEMINI_POLICY = """\
[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a"
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch"
decision = "deny"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch d"
decision = "allow"
priority = 200

[[rule]]
toolName = "run_shell_command"
commandRegex = "mkdir (x|y)"
decision = "allow"
priority = 100
"""
GEMINI_COMMANDS = ["touch a", "touch ab", "touch a2 b", "touch d", "touch c", "mkdir x", "mkdir xz"]
_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def _fake_responses(commands: list[str]) -> str:
    parts = [
        {"functionCall": {"name": "run_shell_command", "args": {"command": c, "description": "d"}}}
        for c in commands
    ]
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}

    def turn(content_parts: list[dict[str, object]]) -> str:
        candidate = {"content": {"role": "model", "parts": content_parts}, "finishReason": "STOP"}
        response = [{"candidates": [{**candidate, "index": 0}], "usageMetadata": usage}]
        return json.dumps({"method": "generateContentStream", "response": response})

    return turn(parts) + "\n" + turn([{"text": "done"}]) + "\n"


def test_gemini_decides_as_the_importer_says(tmp_path: Path) -> None:
    binary = realtools.gemini()
    home, ws = tmp_path / "home", tmp_path / "ws"
    policy = write(home / ".gemini" / "policies" / "mine.toml", GEMINI_POLICY)
    write(home / ".gemini" / "settings.json", json.dumps(_SETTINGS))
    fake = write(tmp_path / "fake.jsonl", _fake_responses(GEMINI_COMMANDS))
    ws.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GEMINI_CLI_HOME": str(home),
        "GEMINI_API_KEY": "dummy",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }
    argv = [str(binary), "-p", "go", "-m", "gemini-2.5-flash", "--fake-responses", str(fake)]
    run = subprocess.run(
        ["unshare", "-rn", *argv, "--output-format", "stream-json"],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    results = [e for e in events if e.get("type") == "tool_result"]
    assert len(results) == len(GEMINI_COMMANDS)
    source = gemini.read([policy], tiers={policy: gemini.USER_TIER})
    for command, result in zip(GEMINI_COMMANDS, results, strict=True):
        expected, _ = source_decision(source, command)
        assert (result["status"] == "success") == (expected is Kind.ALLOW), (command, result)
    # Equal priorities: file order decides (`touch a`); 200 beats 100 (`touch d`); the regex
    # has no boundary at its end (`mkdir xz`).
    assert sorted(p.name for p in ws.iterdir()) == ["a", "d", "x", "xz"]


EXACT_COMMANDS = ["git status", "git status --porcelain", "git status --help", "ls",
                  "cat .git/HEAD"]  # fmt: skip


def _claude_decisions(claude: Path, work: Path, settings: str) -> dict[str, str]:
    """Each command's fate in one real `claude -p` run in a git repository: ran, asked, denied
    (matched by tool_use id: Claude Code runs read-only calls in parallel, in any order)."""
    write(work / "home" / ".claude" / "settings.json", settings)
    (work / "ws").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work / "ws", check=True)
    messages = _claude_turn(claude, work, EXACT_COMMANDS)
    blocks = [b for m in messages if isinstance(m["content"], list) for b in m["content"]]
    asked = {b["id"]: b["input"]["command"] for b in blocks if b.get("type") == "tool_use"}
    out = {}
    for result in (b for b in blocks if b.get("type") == "tool_result"):
        text = json.dumps(result["content"])
        if result.get("is_error") is not True:
            out[asked[result["tool_use_id"]]] = "ran"
        elif "requires approval" in text or "needs approval" in text:
            out[asked[result["tool_use_id"]]] = "asked"
        else:
            out[asked[result["tool_use_id"]]] = f"other: {text}"
    return out


def test_claude_code_exact_entry_given_more_arguments(tmp_path: Path) -> None:
    """`Bash(git status)` allows exactly `git status`: `git status --help` is asked about. But
    Claude Code's own read-only check runs `git status` and `git status --porcelain` with no
    entry at all (the second run): not the entry's doing, and not modelled by the round trip,
    whose report says so."""
    claude = realtools.claude()
    settings = '{"permissions": {"allow": ["Bash(git status)"]}}'
    with_entry = _claude_decisions(claude, tmp_path / "entry", settings)
    without = _claude_decisions(claude, tmp_path / "none", '{"permissions": {"allow": []}}')
    assert with_entry == {"git status": "ran", "git status --porcelain": "ran",
                          "git status --help": "asked", "ls": "ran",
                          "cat .git/HEAD": "ran"}  # fmt: skip
    assert without == with_entry
    source = claude_code.read([write(tmp_path / "settings.json", settings)])
    assert source_decision(source, "git status")[0] is Kind.ALLOW  # the entry
    assert source_decision(source, "git status --help") == (Kind.ASK, ())  # the default
    assert source_decision(source, "git status --porcelain") == (Kind.ASK, ())  # default, too
    result = run_import(Tool.CLAUDE_CODE, [tmp_path / "settings.json"])
    assert not result.translation.rules  # nothing written for an exact allow
    assert "git status --help" in {r.command for r in result.rows}
    assert any("read-only check" in note for note in result.notes)
