"""The front ends that judge a spelling, each asked as its agent asks it, and what "allowed"
means for each.

- `shellgate hook claude-code | gemini | codex`: the event JSON each agent sends on stdin
  (shapes captured from the real CLIs: ../shared/recipes/bridges/*/evidence), answered on
  stdout. In bulk, the same `handle(event, options)` the process runs, in this process.
- Codex's hook is quiet when it has nothing to add: Codex then applies its own rules, so a
  spelling is allowed there when the hook does not deny it and Codex's own decision (explain's
  `decision`, byte-identical to `check`) is `allow`.
- `shellgate explain --json`: the gate's requirement (`gate`, what ShellGate requires beyond
  Codex's own `requirement`; absent when it is Codex's).
- The MCP `shell` tool: a real MCP client session; allowed means it ran (`status` completed,
  or any attempt made).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AGENTS = ("claude-code", "gemini", "codex")


@dataclass
class Home:
    """A throwaway HOME/CODEX_HOME with the rules, and a workspace; no editor reachable."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def ws(self) -> Path:
        return self.root / "ws"

    @classmethod
    def make(cls, root: Path, rules: str | None) -> Home:
        h = cls(root)
        for d in (h.ws, h.codex_home / "rules", root / "run", root / "cache", root / "tmp"):
            d.mkdir(parents=True, exist_ok=True)
        (root / "run").chmod(0o700)
        if rules is not None:
            (h.codex_home / "rules" / "default.rules").write_text(rules)
        for name in ("x", "y"):
            (h.ws / name).write_text("keep\n")
        return h

    def env(self, **extra: str) -> dict[str, str]:
        keep = ("PATH", "LANG", "LC_ALL", "SHELLGATE_BWRAP", "SHELLGATE_TOOLS")
        env = {k: v for k, v in os.environ.items() if k in keep}
        env.update(HOME=str(self.home), CODEX_HOME=str(self.codex_home),
                   XDG_RUNTIME_DIR=str(self.root / "run"), XDG_CACHE_HOME=str(self.root / "cache"),
                   TMPDIR=str(self.root / "tmp"))  # fmt: skip
        env.update(extra)
        return env


def event(agent: str, command: str, cwd: Path) -> dict[str, Any]:
    """The PreToolUse/BeforeTool event as the agent sends it (Copilot CLI sends Claude Code's
    shape to a hook installed under the `PreToolUse` key, as `hook install copilot` does)."""
    common = {"session_id": "0199c0de-0000-7000-8000-000000000018",
              "transcript_path": str(cwd.parent / "transcript.jsonl"), "cwd": str(cwd)}  # fmt: skip
    if agent in ("claude-code", "copilot"):
        return {**common, "permission_mode": "default", "hook_event_name": "PreToolUse",
                "tool_name": "Bash", "tool_use_id": "toolu_0000000000000000000018",
                "tool_input": {"command": command, "timeout": 30000,
                               "description": "Run the command"}}  # fmt: skip
    if agent == "gemini":
        return {**common, "hook_event_name": "BeforeTool", "timestamp": "2026-12-03T07:00:00Z",
                "tool_name": "run_shell_command",
                "tool_input": {"command": command, "description": "Run the command"}}  # fmt: skip
    return {**common, "turn_id": "0199c0de-0000-7000-8000-000000000019",
            "hook_event_name": "PreToolUse", "model": "stand-in", "permission_mode": "default",
            "tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": "call_0000000018"}  # fmt: skip


def hook_verdict(agent: str, answer: Mapping[str, Any] | None) -> str:
    """allow, deny, ask or quiet (Codex's hook said nothing)."""
    if answer is None or answer == {}:
        return "quiet"
    if agent == "gemini":
        return str(answer.get("decision"))
    return str(answer.get("hookSpecificOutput", {}).get("permissionDecision", "quiet"))


def labelled(agent: str, answer: Mapping[str, Any] | None) -> str:
    """hook_verdict, with `allow (sandboxed)` for an allow that moves the command into
    ShellGate's sandbox (the rewritten command in the answer)."""
    verdict = hook_verdict(agent, answer)
    specific = (answer or {}).get("hookSpecificOutput") or {}
    new = (specific.get("updatedInput") or specific.get("tool_input") or {}).get("command")
    return "allow (sandboxed)" if verdict == "allow" and new else verdict


def hook_allowed(agent: str, verdict: str, codex_decision: str) -> bool:
    if agent == "codex":
        return verdict != "deny" and codex_decision == "allow"
    return verdict == "allow"


_REQUIREMENT = {"skip": "allow", "needs_approval": "prompt", "forbidden": "forbidden"}


def gate_decision(doc: Mapping[str, Any]) -> str:
    """What explain says the gate requires (allow, prompt, forbidden): its `gate`, the
    requirement ShellGate adds beyond Codex's; without one, Codex's own requirement."""
    gate = doc.get("gate")
    if not isinstance(gate, Mapping):
        gate = doc["requirement"]
    kind = str(gate.get("type"))
    return _REQUIREMENT.get(kind, kind)


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@dataclass
class Verdicts:
    codex_decision: str  # Codex's own, from explain
    gate: str  # explain's gate decision
    hooks: dict[str, str]  # agent -> allow/deny/ask/quiet

    def allowed_by(self) -> list[str]:
        out = [f"hook {a}" for a, v in self.hooks.items()
               if hook_allowed(a, v, self.codex_decision)]  # fmt: skip
        if self.gate == "allow":
            out.append("explain")
        return out


def judge_in_process(home: Home, scripts: Sequence[str]) -> list[Verdicts]:
    """Each script through the three hooks' own `handle` and explain, in this process."""
    from shellgate.broker.decide import decide
    from shellgate.broker.protocol import AgentRequest
    from shellgate.cli.hook import AGENTS as MODULES
    from shellgate.cli.hook import _options

    out = []
    with environment(home.env()):
        handlers = {a: importlib.import_module(MODULES[a]).handle for a in AGENTS}
        options = {a: _options(a, []) for a in AGENTS}
        for script in scripts:
            request = AgentRequest(agent="explain", session_id=None, cwd=str(home.ws),
                                   command=script)  # fmt: skip
            doc = decide(request, codex_home=home.codex_home).explain or {}
            hooks = {
                a: hook_verdict(a, handlers[a](event(a, script, home.ws), options[a]))
                for a in AGENTS
            }
            out.append(Verdicts(str(doc.get("decision")), gate_decision(doc), hooks))
    return out


def hook_answer(home: Home, agent: str, script: str, command: str | None = None,
                cwd: Path | None = None) -> dict[str, Any] | None:  # fmt: skip
    """The hook as the agent runs it: `command` (default: the one `hook install` writes), the
    event on stdin, in `cwd` (default: the home's workspace); its answer (None: quiet). A
    block (exit 2) is a denial in all three."""
    import shlex

    from shellgate.hooks.install import hook_command

    where = cwd or home.ws
    done = subprocess.run(
        shlex.split(command or hook_command(agent, [])),
        input=json.dumps(event(agent, script, where)),
        env=home.env(), cwd=where, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if done.returncode == 2:
        return {"decision": "deny"} if agent == "gemini" else {
            "hookSpecificOutput": {"permissionDecision": "deny", "exit": 2}}  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] | None = json.loads(done.stdout) if done.stdout.strip() else None
    return answer


def installed_flags(home: Home, agent: str) -> list[str]:
    """The options `hook install AGENT` gives the hook (its default sandbox among them)."""
    import shlex

    words = shlex.split(installed_hook(home, agent))
    return words[words.index(agent, words.index("hook")) + 1 :]


def hook_verdicts(home: Home, cwd: Path, scripts: Sequence[str],
                  flags: Mapping[str, list[str]]) -> list[dict[str, str]]:  # fmt: skip
    """Each script through each agent's `handle` with the options in `flags` (by agent), in
    this process, the event's cwd being `cwd`: agent -> `labelled` verdict."""
    from shellgate.cli.hook import AGENTS as MODULES
    from shellgate.cli.hook import _options

    with environment(home.env()):
        handlers = {a: importlib.import_module(MODULES[a]).handle for a in flags}
        options = {a: _options(a, list(f)) for a, f in flags.items()}
        return [{a: labelled(a, handlers[a](event(a, script, cwd), options[a]))
                 for a in flags} for script in scripts]  # fmt: skip


def hook_process(home: Home, agent: str, script: str) -> str:
    return hook_verdict(agent, hook_answer(home, agent, script))


def installed_hook(home: Home, agent: str) -> str:
    """`shellgate hook install AGENT` in this home, as a user runs it; the command it wrote."""
    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", "install", agent],
                          env=home.env(), cwd=home.ws, capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    if agent == "copilot":
        from shellgate.hooks.copilot_install import hook_file, installed_command

        command = installed_command(hook_file(None, home.env()))
        assert command, f"hook install copilot wrote no hook command: {done.stdout}"
        return command
    folder = {"claude-code": ".claude", "gemini": ".gemini"}[agent]
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "command" and isinstance(value, str) and f"hook {agent}" in value:
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads((home.home / folder / "settings.json").read_text()))
    assert found, f"hook install {agent} wrote no hook command"
    return found[0]


def explain_process(home: Home, script: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-I", "-m", "shellgate", "explain", "--json", "--codex-home",
         str(home.codex_home), "--cwd", str(home.ws), "--shell", script],
        env=home.env(), cwd=home.ws, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


async def mcp_statuses(home: Home, scripts: Sequence[str], stubs: Path) -> list[str]:
    """Each script as one call of the MCP `shell` tool in one real client session, its PATH
    led by recording stubs: the status (`completed` means it ran). The server runs
    `bash -lc`, whose /etc/profile resets PATH: the home's ~/.bash_profile puts the stubs back
    in front. Whatever runs anyway runs in ShellGate's sandbox, in the scratch workspace."""
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    (home.home / ".bash_profile").write_text(f'PATH="{stubs}:$PATH"\n')
    env = home.env(PATH=f"{stubs}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                   PYTHONPATH=os.pathsep.join(sys.path))  # fmt: skip
    params = StdioServerParameters(
        command=sys.executable,
        args=["-I", "-m", "shellgate", "mcp", "--workspace", str(home.ws), "--codex-home",
              str(home.codex_home), "--structured"],
        env=env, cwd=str(home.ws))  # fmt: skip
    out = []
    async with Client(params, mode="legacy") as client:
        for script in scripts:
            result = await client.call_tool("shell", {"command": script, "timeout_ms": 10000})
            data = result.structured_content or {}
            ran = data.get("status") == "completed" or bool(data.get("attempts"))
            out.append("ran" if ran else str(data.get("status") or "refused"))
    return out
