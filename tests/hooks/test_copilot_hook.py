"""`shellgate hook copilot` as both hosts run it (a process, JSON on stdin): each event shape
gets the answer shape its host honours, every tool that runs a command or types into a terminal
is gated, an internal error blocks (exit 2, nothing on stdout); `hook install/uninstall/doctor
copilot` on real files."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from agents import Home

import realtools

RULES = (
    'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
    'prefix_rule(pattern=["touch", "asked"], decision="prompt", justification="look first")\n'
    'prefix_rule(pattern=["touch"], decision="allow")\n'
)


def run(home: Home, stdin: str, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-m", "shellgate", "hook", "copilot", *flags],
        input=stdin,
        env=home.env(**env),
        cwd=home.ws,
        capture_output=True,
        text=True,
        timeout=60,
    )


def answer(home: Home, event: dict[str, Any], *flags: str) -> dict[str, Any]:
    done = run(home, json.dumps({"cwd": str(home.ws), **event}), *flags)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)  # one JSON object, nothing else
    return out


def cli_pascal(command: str, tool: str = "Bash") -> dict[str, Any]:
    """Copilot CLI under a hook file's `PreToolUse` key (Claude-style, no tool_use_id)."""
    return {"hook_event_name": "PreToolUse", "session_id": "s", "timestamp": "2026-12-03T00:00Z",
            "tool_name": tool, "tool_input": {"command": command, "description": "d"}}  # fmt: skip


def vscode(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """VS Code's agent: always Claude-style."""
    return {"hook_event_name": "PreToolUse", "session_id": "s", "transcript_path": "/t.json",
            "tool_name": tool, "tool_input": tool_input, "tool_use_id": "call_1"}  # fmt: skip


def cli_camel(tool: str, args: Any) -> dict[str, Any]:
    """Copilot CLI under `preToolUse`: its own shape."""
    return {"sessionId": "s", "timestamp": 1796281756823, "toolName": tool, "toolArgs": args}


def permission(command: str) -> dict[str, Any]:
    return {"hookName": "permissionRequest", "sessionId": "s", "timestamp": 1, "toolName": "bash",
            "toolInput": {"command": command}, "permissionSuggestions": []}  # fmt: skip


def nested(out: dict[str, Any]) -> dict[str, Any]:
    inner: dict[str, Any] = out["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse" and set(out) == {"hookSpecificOutput"}
    return inner


PASCAL = {
    "Copilot CLI": lambda c: cli_pascal(c),
    "VS Code": lambda c: vscode(
        "run_in_terminal", {"command": c, "explanation": "e", "goal": "g", "mode": "sync"}
    ),
}


@pytest.mark.parametrize("host", sorted(PASCAL))
def test_pre_tool_use_answers_nested_for_both_hosts(home: Home, host: str) -> None:
    home.rules(RULES)
    make = PASCAL[host]
    denied = nested(answer(home, make("rm -rf x")))
    assert denied["permissionDecision"] == "deny"
    assert "no rm" in denied["permissionDecisionReason"]
    allowed = nested(answer(home, make("touch a")))
    assert allowed["permissionDecision"] == "allow" and "updatedInput" not in allowed
    asked = nested(answer(home, make("touch asked")))
    assert asked["permissionDecision"] == "ask"
    assert "no editor is reachable" in asked["permissionDecisionReason"]
    assert nested(answer(home, make("touch asked"), "--fallback", "deny"))[
        "permissionDecision"] == "deny"  # fmt: skip
    # known safe, no rule: run in the sandbox (an allow rule's command runs outside, as in Codex)
    boxed = nested(answer(home, make("ls"), "--sandbox", "workspace-write"))
    new = boxed["updatedInput"]
    assert boxed["permissionDecision"] == "allow"
    assert new["command"].endswith("shellgate sandbox --mode workspace-write --cwd "
                                   f"{home.ws} -- bash -lc ls")  # fmt: skip
    assert " -I -m shellgate " in new["command"]
    others = {k: v for k, v in make("x")["tool_input"].items() if k != "command"}
    assert {k: v for k, v in new.items() if k != "command"} == others  # the rest kept


def test_camel_pre_tool_use_answers_flat_with_modified_args(home: Home) -> None:
    home.rules(RULES)
    denied = answer(home, cli_camel("bash", {"command": "rm -rf x", "description": "d"}))
    assert denied["permissionDecision"] == "deny" and "no rm" in denied["permissionDecisionReason"]
    assert "hookSpecificOutput" not in denied  # ignored under preToolUse: the command would run
    boxed = answer(home, cli_camel("bash", {"command": "ls", "description": "d"}),
                   "--sandbox", "read-only")  # fmt: skip
    assert boxed["permissionDecision"] == "allow"
    assert boxed["modifiedArgs"]["description"] == "d"
    assert "--mode read-only" in boxed["modifiedArgs"]["command"]
    as_text = answer(home, cli_camel("bash", json.dumps({"command": "touch asked"})))
    assert as_text["permissionDecision"] == "ask"
    typed = answer(home, cli_camel("write_bash", {"shellId": "1", "input": "rm -rf x"}))
    assert typed["permissionDecision"] == "deny"
    respelt = {"hook_event_name": "PreToolUse", "tool_name": "WriteBash",
               "tool_input": {"shellId": "1", "input": "rm -rf x"}}  # fmt: skip
    assert nested(answer(home, respelt))["permissionDecision"] == "deny"
    enter = answer(home, cli_camel("write_bash", {"shellId": "1", "input": ""}))
    assert enter["permissionDecision"] == "allow"
    assert answer(home, cli_camel("view", {"path": "/etc/passwd"})) == {}
    assert answer(home, cli_camel("list_bash", None)) == {}  # no arguments: not ours anyway


def test_permission_request_answers_behavior(home: Home) -> None:
    home.rules(RULES)
    assert answer(home, permission("touch a")) == {"behavior": "allow"}
    denied = answer(home, permission("rm x"))
    assert denied["behavior"] == "deny" and "no rm" in denied["message"]
    assert answer(home, permission("touch asked")) == {}  # Copilot CLI asks the person
    boxed = answer(home, permission("ls"), "--sandbox", "workspace-write")
    assert boxed["behavior"] == "deny" and "cannot move it into the sandbox" in boxed["message"]


def test_vscode_terminal_tools_are_gated(home: Home) -> None:
    home.rules(RULES)
    send = {"id": "6f1c2b1e-0000-4000-8000-000000000000"}
    typed = nested(answer(home, vscode("send_to_terminal", {**send, "command": "rm -rf x"})))
    assert typed["permissionDecision"] == "deny" and "no rm" in typed["permissionDecisionReason"]
    ok = nested(answer(home, vscode("send_to_terminal", {**send, "command": "ls"}),
                       "--sandbox", "workspace-write"))  # fmt: skip
    assert ok["permissionDecision"] == "allow" and "updatedInput" not in ok  # typed, not wrapped
    assert nested(answer(home, vscode("send_to_terminal", {**send, "command": " "})))[
        "permissionDecision"] == "allow"  # fmt: skip
    task = {"workspaceFolder": str(home.ws),
            "task": {"label": "t", "type": "shell", "command": "touch a"}}  # fmt: skip
    for tool, tool_input in (("create_and_run_task", task),
                             ("run_task", {"workspaceFolder": str(home.ws), "id": "shell: t"})):
        out = nested(answer(home, vscode(tool, tool_input)))
        assert out["permissionDecision"] == "deny", tool
        assert "run_in_terminal" in out["permissionDecisionReason"]
    keys = {"commandId": "workbench.action.terminal.sendSequence", "args": {"text": "rm x\n"}}
    assert nested(answer(home, vscode("run_vscode_command", keys)))["permissionDecision"] == "deny"
    assert answer(home, vscode("run_vscode_command", {"commandId": "editor.action.format"})) == {}
    cell = nested(answer(home, vscode("run_notebook_cell", {"filePath": "n.ipynb", "cellId": "1"})))
    assert cell["permissionDecision"] == "ask"
    assert answer(home, vscode("read_file", {"filePath": "/etc/passwd"})) == {}


@pytest.mark.parametrize(
    "stdin",
    [
        "{not json",
        "[1]",
        "",
        json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}}),
        json.dumps(cli_pascal("")),
        json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "run_in_terminal",
                "tool_input": {"command": ["ls"]},
                "cwd": "/",
            }
        ),
    ],
)
def test_what_cannot_be_read_blocks(home: Home, stdin: str) -> None:
    done = run(home, stdin)
    assert done.returncode == 2 and done.stdout == ""
    assert "shellgate hook copilot:" in done.stderr and "blocked" in done.stderr


def test_bad_deadline_blocks(home: Home) -> None:
    for value in ("soon", "0", "-1"):
        assert run(home, json.dumps(cli_pascal("ls")), "--deadline", value).returncode == 2


def test_the_deadline_answers_no_and_ends_the_process() -> None:
    """A hook stuck past its deadline prints the host's "no" once, alone, and exits 0 (a
    blocked main thread never gets to write after it)."""
    script = (
        "import sys, time\n"
        "from shellgate.hooks.copilot import Deadline\n"
        "Deadline(0.3, {'permissionDecision': 'deny', 'permissionDecisionReason': 'late'})\n"
        "time.sleep(30)\n"
        "print('never')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=20)  # fmt: skip
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"permissionDecision": "deny",
                                       "permissionDecisionReason": "late"}  # fmt: skip


def shellgate(home: Home, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shellgate", "hook", *args], env=home.env(),
                          cwd=home.ws, capture_output=True, text=True, timeout=60)  # fmt: skip


@realtools.needs("copilot")
def test_install_user_and_project_uninstall_and_doctor(home: Home) -> None:
    home.npm_global("copilot")
    missing = shellgate(home, "doctor", "copilot")
    assert missing.returncode == 1 and "no ShellGate hook" in missing.stdout
    out = home.install("copilot", "--sandbox", "workspace-write")
    user = home.home / ".copilot" / "hooks" / "shellgate.json"
    assert str(user) in out
    data = json.loads(user.read_text())
    [entry] = data["hooks"]["PreToolUse"]
    assert data["version"] == 1 and set(data["hooks"]) == {"PreToolUse"}
    assert entry["type"] == "command" and entry["timeoutSec"] == 330
    assert entry["bash"].startswith(f"{sys.executable} -I -m shellgate hook copilot")
    assert entry["bash"].endswith("--sandbox workspace-write")
    assert "already installed" in home.install("copilot", "--sandbox", "workspace-write")
    live = shellgate(home, "doctor", "copilot")
    assert live.returncode == 0 and live.stdout.startswith("copilot: live"), live.stdout
    assert "trusted" not in out
    project = home.install("copilot", "--scope", "project")
    assert str(home.ws / ".github" / "hooks" / "shellgate.json") in project
    assert "trusted folder" in project and "trusted workspace" in project
    assert shellgate(home, "uninstall", "copilot").returncode == 0
    assert not user.exists()
    assert "already uninstalled" in shellgate(home, "uninstall", "copilot").stdout
    broken = home.ws / ".github" / "hooks" / "shellgate.json"
    broken.write_text(broken.read_text().replace("hook copilot", "hook copilot --deadline x"))
    bad = shellgate(home, "doctor", "copilot")
    assert bad.returncode == 1 and "gave no decision it honours" in bad.stdout
    for host in ("Copilot CLI", "VS Code's agent"):
        assert host in bad.stdout


def test_install_refuses_what_it_cannot_do(home: Home) -> None:
    assert shellgate(home, "install", "copilot", "--scope", "managed").returncode == 2
    assert shellgate(home, "install", "claude-code", "--deadline", "5").returncode == 2
    long = home.install("copilot", "--deadline", "600")
    assert "shellgate.json" in long
    entry = json.loads((home.home / ".copilot/hooks/shellgate.json").read_text())
    assert entry["hooks"]["PreToolUse"][0]["timeoutSec"] == 615  # above the hook's deadline
