"""Codex's hooks in ShellGate's MCP `shell` tool (the real `shellgate mcp` process, the MCP
SDK's client over stdio): they run as in every ShellGate run, with Codex's stdin for its shell
tool (`tool_name` "Bash"), whatever the MCP client calls the tool. The user's trusted hooks and
a trusted project's `.codex` hooks (the tool's workspace is the session's folder)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import mcp_client, text

from shellgate.codexconfig.hook_trust import state_key, trust_hash

pytestmark = pytest.mark.timeout(120)
HOOK = Path(__file__).parent.parent / "answer" / "codex_hook.py"


def hooks(tmp: Path, folder: Path, answers: dict[str, Any], events: list[str]) -> Path:
    """`folder/hooks.json`: one hook (`codex_hook.py`, answering as `answers` says) per event,
    trusted in the user's config.toml (appended to `tmp/codex-home/config.toml`)."""
    ctl, log = tmp / "ctl.json", tmp / "hooklog.jsonl"
    ctl.write_text(json.dumps({"log": str(log), **answers}))
    command = f"{sys.executable} -S {HOOK} {ctl} h1"
    folder.mkdir(parents=True, exist_ok=True)
    declared = folder / "hooks.json"
    declared.write_text(json.dumps({"hooks": {e: [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": command}]}] for e in events}}))  # fmt: skip
    config = tmp / "codex-home" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    lines = [config.read_text()] if config.exists() else []
    for e in events:
        lines += [f"[hooks.state.{json.dumps(state_key(declared, e, 0))}]",
                  f"trusted_hash = {json.dumps(trust_hash(e, 'Bash', command, None))}"]
    config.write_text("\n".join(lines) + "\n")
    return log


def calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line)["stdin"] for line in log.read_text().splitlines()]


async def test_the_shell_tool_runs_codex_hooks_for_bash(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    log = hooks(tmp_path, home, {"PreToolUse": {"kind": "quiet"},
                                 "PostToolUse": {"kind": "quiet"}},
                ["PreToolUse", "PostToolUse"])  # fmt: skip
    async with mcp_client(workspace, home, args=("--sandbox", "danger-full-access")) as client:
        ran = await client.call_tool("shell", {"command": "echo hooked"})
    assert not ran.is_error and "hooked" in text(ran)
    seen = calls(log)
    assert [(c["hook_event_name"], c["tool_name"], c["tool_input"]["command"]) for c in seen] \
        == [("PreToolUse", "Bash", "echo hooked"), ("PostToolUse", "Bash", "echo hooked")]
    assert seen[1]["tool_response"] == "hooked\n" and seen[0]["cwd"] == str(workspace)


async def test_a_trusted_projects_hook_refuses_in_the_shell_tool(
    workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(f'[projects."{workspace}"]\ntrust_level = "trusted"\n')
    deny = {"kind": "json", "stdout": {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "project says no"}}}  # fmt: skip
    log = hooks(tmp_path, workspace / ".codex", {"PreToolUse": deny}, ["PreToolUse"])
    async with mcp_client(workspace, home) as client:
        refused = await client.call_tool("shell", {"command": "touch made.txt"})
    assert refused.is_error
    assert "Command blocked by PreToolUse hook: project says no. Command: touch made.txt" \
        in text(refused)
    assert refused.structured_content["answered_by"] == "hook"
    assert not (workspace / "made.txt").exists()
    assert [c["tool_name"] for c in calls(log)] == ["Bash"]
