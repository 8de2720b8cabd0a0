"""Every row of hook_chain_cases.json and reviewer_cases.json played through the real Codex
(0.169.0, 0.171.0), offline: the row's set-up written where Codex reads it (hookenv.Setup for
the hooks and their trust; `CODEX_HOME/rules/default.rules`; the admin's requirements.toml on
/etc/codex in a private mount namespace), the stand-in (standin/standin_review.py) scripted
with the row's calls and reviewer answers, `codex app-server` answering the person's questions
as the row's person does (codex_play.py). `codex exec` only where the row is about an exec
flag (`--approve-for-me`, codexrun.py). What Codex did is a `Played`; test_oracle_live.py
reads it against the row and against ShellGate's answer for the same row.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codexrun import codex_exec
from test_hook_chain import _policy, _setup

from etc_overlay import etc_overlay_argv

HERE = Path(__file__).parent
HOOK_CASES: list[dict[str, Any]] = json.loads((HERE / "hook_chain_cases.json").read_text())
REVIEW_CASES: list[dict[str, Any]] = json.loads((HERE / "reviewer_cases.json").read_text())
PROMPT = "please do the task"  # the recipe's (batch.sh), and ShellGate's replay transcript's
# the person's answer (AutomaticApprover's) as an app-server client gives it
DECISION = {"approved": "accept", "denied": "decline", "abort": "cancel",
            "approved_for_session": "acceptForSession",
            "approved_execpolicy_amendment": "amend"}  # fmt: skip


@dataclass
class Played:
    """What one Codex did with one row."""

    row: str
    version: str
    root: Path
    asked: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    hooks: list[dict[str, Any]] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # what was made outside the workspace
    error: str = ""
    stderr: str = ""
    seconds: float = 0.0

    @property
    def ws(self) -> Path:
        return self.root / "ws"

    @property
    def home(self) -> Path:
        return self.root / "codex-home"

    def reviews(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["role"] == "reviewer"]

    def told(self) -> list[str]:
        """What the main model read of each of its tool calls, in order (the last request)."""
        main = [r for r in self.requests if r["role"] == "main" and "input" in r["body"]]
        if not main:
            return []
        return [_text(i["output"]) for i in main[-1]["body"]["input"]
                if str(i.get("type", "")).endswith("_call_output")]  # fmt: skip

    def ran(self) -> list[bool]:
        """Each tool call the model was told of: did its command run (exec_command's output;
        app-server sends no item for a command that failed in the sandbox)."""
        return [bool(re.match(r"Chunk ID: .*\nProcess exited with code", t, re.S))
                for t in self.told()]  # fmt: skip


def _text(output: Any) -> str:
    if isinstance(output, list):
        return "".join(p.get("text", "") for p in output if isinstance(p, dict))
    return str(output)


def call(command: str, escalate: str | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"tool": "<auto>", "command": command}
    if escalate:
        step["extra"] = {"sandbox_permissions": "require_escalated", "justification": escalate}
    return step


def _appserver(codex: Path, root: Path, etc: Path, cfg: dict[str, Any]) -> dict[str, Any]:
    cfg = {"codex": str(codex), "home": str(root / "codex-home"), "ws": str(root / "ws"),
           "out": str(root / "out"), "prompt": PROMPT, **cfg}  # fmt: skip
    (root / "out").mkdir(parents=True, exist_ok=True)
    (root / "play.json").write_text(json.dumps(cfg))
    argv = etc_overlay_argv(root / "ns", {"codex": etc}, [
        sys.executable, str(HERE / "codex_play.py"), str(root / "play.json"),
        str(root / "result.json")], net=True)  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
    result = root / "result.json"
    if not result.exists():
        return {"thread_error": f"the player failed (rc {done.returncode}): {done.stderr[-2000:]}"}
    out: dict[str, Any] = json.loads(result.read_text())
    log = root / "out" / "requests.jsonl"
    out["requests"] = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return out


def _played(row: str, version: str, root: Path, raw: dict[str, Any], t0: float) -> Played:
    hooklog = root / "hooklog.jsonl"
    return Played(
        row, version, root, asked=raw.get("asked", []), items=raw.get("items", []),
        turns=raw.get("turns", []), notes=raw.get("notes", []), requests=raw.get("requests", []),
        hooks=[json.loads(x) for x in hooklog.read_text().splitlines()] if hooklog.exists()
        else [], error=raw.get("thread_error") or ("timed out" if raw.get("timeout") else ""),
        stderr=raw.get("stderr", ""), seconds=round(time.monotonic() - t0, 2),
    )  # fmt: skip


def fill(case: dict[str, Any], outside: Path) -> dict[str, Any]:
    filled: dict[str, Any] = json.loads(json.dumps(case).replace("{OUTSIDE}", str(outside)))
    return filled


def play_hook_row(codex: Path, version: str, root: Path, case: dict[str, Any]) -> Played:
    """A hook_chain_cases.json row: its policy and sandbox on the thread, its hooks, rules and
    admin requirements where Codex reads them, its person answering every question."""
    t0 = time.monotonic()
    outside = Path(tempfile.mkdtemp(prefix="oracle-outside-", dir="/var/tmp"))
    try:
        case = fill(case, outside)
        s = _setup(root, case)
        _policy(root, case, s)  # writes the admin's [rules] into the requirements.toml
        if case.get("rules"):
            (s.home / "rules").mkdir()
            (s.home / "rules" / "default.rules").write_text(case["rules"])
        commands = [case["command"], *([case["again"]] if "again" in case else [])]
        main = [call(c, case.get("escalate")) for c in commands] + [{"text": "done"}]
        thread = {"approvalPolicy": case.get("policy", "on-request"),
                  "sandbox": case.get("sandbox", "danger-full-access")}
        if thread["approvalPolicy"] == "on-failure":
            # thread/start refuses the legacy policy ("unknown variant"); config.toml takes it
            config = s.home / "config.toml"
            config.write_text('approval_policy = "on-failure"\n'
                              + (config.read_text() if config.exists() else ""))
            del thread["approvalPolicy"]
        raw = _appserver(codex, root, s.etc, {
            "main": main, "review": [], "thread": thread,
            "decisions": [DECISION[case.get("person") or "denied"]] * 4})  # fmt: skip
        played = _played(case["id"], version, root, raw, t0)
        played.outside = sorted(p.name for p in outside.iterdir())
        return played
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def review_main(case: dict[str, Any]) -> list[dict[str, Any]]:
    steps = [{"custom_tool_calls": [{"name": "apply_patch", "input": c["patch"]}]}
             if "patch" in c else call(c["command"], c.get("escalate"))
             for c in case["calls"]]  # fmt: skip
    return [*steps, {"text": "done"}]


def play_review_row(codex: Path, version: str, root: Path, case: dict[str, Any],
                    *, shellgate_hook: bool = False) -> Played:
    """A reviewer_cases.json row: its config.toml (policy, sandbox and reviewer decided there),
    rules and requirements.toml, the reviewer's script, a person who approves. With
    `shellgate_hook`, `shellgate hook install codex` first (ShellGate as Codex's hook)."""
    t0 = time.monotonic()
    home, ws, etc = root / "codex-home", root / "ws", root / "etc-codex"
    for d in (home, ws, etc):
        d.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(case["config"])
    if case.get("rules"):
        (home / "rules").mkdir()
        (home / "rules" / "default.rules").write_text(case["rules"])
    if case.get("etc"):
        (etc / "requirements.toml").write_text(case["etc"])
    if shellgate_hook:
        install_shellgate_hook(root, home)
    args = ["-c", f"model={case['model']}"] if case.get("model") else []
    if case.get("approve_for_me"):  # an exec flag: the one row codex exec plays
        requests = codex_exec(codex, root / "out", ws, home, PROMPT, review_main(case),
                              case["review"], "--approve-for-me", *args)  # fmt: skip
        events = root / "out" / "events.jsonl"
        items = [json.loads(x).get("item", {}) for x in events.read_text().splitlines()
                 if '"item.completed"' in x] if events.exists() else []  # fmt: skip
        raw = {"requests": requests, "items": [
            {"type": "commandExecution", "status": i.get("status"), "exitCode": i.get("exit_code")}
            for i in items if i.get("type") == "command_execution"]}  # fmt: skip
        return _played(case["id"], version, root, raw, t0)
    thread = {}
    if 'approval_policy = "untrusted"' in case["config"]:
        # Codex refuses it in config.toml ("no longer supported"); a client's thread asks for it
        # (as_batch.sh gives it to thread/start)
        (home / "config.toml").write_text(case["config"].replace(
            'approval_policy = "untrusted"\n', ""))
        thread["approvalPolicy"] = "untrusted"
    raw = _appserver(codex, root, etc, {"main": review_main(case), "review": case["review"],
                                        "decisions": ["accept"] * 4, "args": args,
                                        "thread": thread})  # fmt: skip
    return _played(case["id"], version, root, raw, t0)


def install_shellgate_hook(root: Path, home: Path) -> None:
    """`shellgate hook install codex`, as a user runs it: $CODEX_HOME/hooks.json + its trust."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(root), "CODEX_HOME": str(home),
           "XDG_STATE_HOME": str(root / "state")}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", "install", "codex"],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (home / "hooks.json").exists(), done.stdout
