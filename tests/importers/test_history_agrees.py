"""`shellgate replay` on a fixed history agrees with `shellgate import --history`'s round
trip, record by record: each tool's settings imported with --write into a fresh CODEX_HOME,
then both real processes run on the same history (a bash history, the real Claude Code, Gemini
CLI and Codex fixtures, and a Codex rollout with argv calls) under the same approval policy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "replay" / "fixtures"
ROLLOUT = next((FIXTURES / "codex" / "sessions").rglob("rollout-*.jsonl"))
HISTORY = "git status\ngit status --short\nsed -n 1p README.md\nrm -rf build\nnpm test\nls -la\n"
ESCALATED = "git init -q && touch escalated.txt"  # the real rollout's require_escalated call
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
# Calls of Codex's argv tools (`shell`, `local_shell_call`), each with its own workdir or
# escalation, added to a copy of the real rollout in the shape of its own function_call lines.
ARGV_CALLS = [
    {"command": ["bash", "-lc", "git status --short"], "workdir": "sub"},
    {"command": ["git", "push", "origin", "main"]},
    {"command": ["bash", "-lc", ESCALATED]},  # the same script, not escalated: its own record
    {"command": ["rm", "-rf", "build"], "sandbox_permissions": "require_escalated",
     "justification": "clean the build"},
]  # fmt: skip


def _argv_rollout(folder: Path) -> Path:
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines()
    call = json.loads(next(line for line in lines if '"function_call"' in line))
    for n, args in enumerate(ARGV_CALLS):
        call["payload"].update(name="shell", arguments=json.dumps(args), call_id=f"call_argv{n}")
        lines.append(json.dumps(call))
    action = {"type": "exec", "command": ["npm", "test"], "working_directory": "pkg"}
    lines.append(json.dumps({"timestamp": call["timestamp"], "type": "response_item",
                             "payload": {"type": "local_shell_call", "call_id": "call_local",
                                         "status": "completed", "action": action}}))  # fmt: skip
    path = folder / "sessions" / "2026" / "12" / "01" / ROLLOUT.name.replace("-01a2", "-0bb2")
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _shellgate(*args: str, cwd: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", *args], cwd=cwd, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _key(command: str | list[str], permissions: str | None) -> tuple[str, str | None]:
    return json.dumps(command), permissions


@pytest.mark.parametrize(
    ("tool", "policy", "sandbox"),
    [("claude-code", "untrusted", "workspace-write"), ("gemini", "untrusted", "workspace-write"),
     ("vscode", "untrusted", "workspace-write"), ("claude-code", "on-request", "workspace-write"),
     ("gemini", "on-request", "read-only")],
)  # fmt: skip
def test_replay_agrees_with_round_trip(
    tool: str, policy: str, sandbox: str, tmp_path: Path
) -> None:
    home, work = tmp_path / "codex", tmp_path / "work"
    (home / "rules").mkdir(parents=True)
    work.mkdir()
    name, text = SETTINGS[tool]
    settings = tmp_path / name
    settings.write_text(text, encoding="utf-8")
    history = tmp_path / ".bash_history"
    history.write_text(HISTORY, encoding="utf-8")
    argv_rollout = _argv_rollout(tmp_path / "argv")
    sources = [str(history), str(FIXTURES / "claude"), str(FIXTURES / "gemini"),
               str(FIXTURES / "codex"), f"codex:{tmp_path / 'argv'}"]  # fmt: skip
    target = home / "rules" / "imported.rules"
    common = ["--codex-home", str(home), "--approval-policy", policy, "--sandbox", sandbox,
              "--format", "json"]  # fmt: skip
    imported = _shellgate("import", tool, str(settings), "--write", str(target),
                          "--cwd", str(work), *common, "--history", *sources, cwd=work)  # fmt: skip
    assert imported["written"], imported
    replayed = _shellgate("replay", *sources, *common, cwd=work)
    theirs = {_key(d["command"], d["sandbox_permissions"]): _KIND[d["outcome"]]
              for d in replayed["decisions"]}  # fmt: skip
    rows = [r for r in imported["round_trip"] if r["from"] == "history"]
    mine = {_key(r["recorded"], r["sandbox_permissions"]): r["shellgate_decision"] for r in rows}
    assert len(rows) == len(mine) == imported["history"]["distinct"] == replayed["distinct"]
    assert mine == theirs  # every record, decided the same way
    assert set(replayed["sources"]) == {"bash", "claude-code", "codex", "gemini"}

    # The source tool sees an argv `bash -lc SCRIPT` as its script, another argv joined; it
    # decides them as it decides the same text recorded as a script.
    by_key = {_key(r["recorded"], r["sandbox_permissions"]): r for r in rows}
    argv = by_key[_key(["bash", "-lc", "git status --short"], None)]
    script = by_key[_key("git status --short", None)]
    assert argv["command"] == script["command"] == "git status --short"
    assert argv["source_decision"] == script["source_decision"] == "allow"
    push = by_key[_key(["git", "push", "origin", "main"], None)]
    assert push["command"] == "git push origin main"
    last_line = len(argv_rollout.read_text(encoding="utf-8").splitlines())
    assert by_key[_key(["npm", "test"], None)]["where"] == f"{argv_rollout}:{last_line}"

    # The real rollout's escalation request is its own record, decided with the escalation.
    escalated = by_key[_key(ESCALATED, "require_escalated")]
    plain = by_key[_key(["bash", "-lc", ESCALATED], None)]
    assert escalated["command"] == plain["command"] == ESCALATED
    if policy == "on-request":  # sandboxed without asking; asked about with the escalation
        assert (plain["shellgate_decision"], escalated["shellgate_decision"]) == ("allow", "ask")
    else:
        assert plain["shellgate_decision"] == escalated["shellgate_decision"] == "ask"
    # The imported entries are exercised: an allow, and `rm` (VS Code's `false` only stops
    # auto-approval: ask); escalating does not get past a forbidden rule.
    assert theirs[_key("git status --short", None)] == "allow"
    rm = "ask" if tool == "vscode" else "deny"
    assert theirs[_key("rm -rf build", None)] == rm
    assert theirs[_key(["rm", "-rf", "build"], "require_escalated")] == rm
