"""The real Claude Code, Gemini CLI and Copilot CLI (offline, `unshare -rn`, the stand-in
model), each with ShellGate's hook installed by `shellgate hook install` and Codex's `[otel]`
on: their commands reach an OpenTelemetry collector in Codex's vocabulary. The collector runs
outside the agents' network namespace, so the hooks cannot reach it: the events wait on disk,
and `shellgate log drain` sends them once the turn is over (the collector "comes back")."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from receiver import Receiver

from shellgate.record import spool

sys.path.insert(0, str(Path(__file__).parent.parent / "hooks"))

import agents
from agents import Home, bash

import realtools
from realclients import tool_results

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def home() -> Iterator[Home]:
    yield from _home()


def _home() -> Iterator[Home]:
    import shutil
    import tempfile

    base = Path.home() / ".cache" / "shellgate-tests"
    base.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="otel-", dir=base))
    try:
        yield Home.make(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _claude(home: Home, script: list[dict[str, Any]]) -> dict[str, Any]:
    return agents.claude_turn(home, realtools.claude(), script)


def _gemini(home: Home, script: list[dict[str, Any]]) -> dict[str, Any]:
    return agents.gemini_turn(home, realtools.gemini(), script)


def _copilot(home: Home, script: list[dict[str, Any]]) -> dict[str, Any]:
    return agents.copilot_turn(home, realtools.copilot(), script)


TURNS: dict[str, tuple[str, str, Callable[[Home, list[dict[str, Any]]], dict[str, Any]]]] = {
    "claude-code": ("claude-code", "claude-code", _claude),
    "gemini": ("gemini", "gemini", _gemini),
    "copilot": ("copilot", "copilot-cli", _copilot),
}


@pytest.mark.parametrize("agent", list(TURNS))
def test_an_agents_commands_reach_the_collector(home: Home, agent: str) -> None:
    install, originator, turn = TURNS[agent]
    receiver = Receiver()
    try:
        home.rules(agents.RULES)
        (home.ws / "victim").write_text("keep")
        url = f"http://127.0.0.1:{receiver.port}/v1"
        (home.codex_home / "config.toml").write_text(
            '[otel]\nenvironment = "agents"\n'
            f'exporter = {{ otlp-http = {{ endpoint = "{url}/logs", protocol = "json" }} }}\n'
            f'metrics_exporter = {{ otlp-http = {{ endpoint = "{url}/metrics", '
            'protocol = "binary" } }\n')  # fmt: skip
        if agent == "gemini":
            agents.gemini_prepare(home)  # its settings first: `hook install` adds to them
        home.install(install, "--sandbox", "workspace-write")
        result = turn(home, [bash("rm -f victim"), bash("ls"), {"text": "fin"}])
        assert result["rc"] == 0, result["stderr"]
        told = tool_results(result["requests"][-1])
        assert "keep the victim file" in told[0] and (home.ws / "victim").exists()
        assert not receiver.rows()  # unreachable from the agent's namespace: kept on disk
        env = home.env(SHELLGATE_OTEL_TIMEOUT="5")
        folder = spool.folder_of(str(home.home / ".local" / "state" / "shellgate"))
        deadline = time.monotonic() + 30
        while spool.draining(folder):  # the hooks' own sender, still trying in the namespace
            assert time.monotonic() < deadline
            time.sleep(0.2)
        drained = subprocess.run([sys.executable, "-m", "shellgate", "log", "drain"], env=env,
                                 capture_output=True, text=True, timeout=60)  # fmt: skip
        assert "sent 2, waiting 0" in drained.stdout, drained.stdout + drained.stderr
        logs = [r for r in receiver.rows() if r["signal"] == "log"]
        by_name: dict[str, list[dict[str, Any]]] = {}
        for row in logs:
            by_name.setdefault(str(row["name"]), []).append(row["attrs"])
        # the refusal by a rule: a result and no decision; the allowed `ls`: both (Codex's rule)
        assert len(by_name["codex.tool_result"]) == 2 and len(by_name["codex.tool_decision"]) == 1
        refused = next(a for a in by_name["codex.tool_result"] if a["success"][1] == "false")
        assert json.loads(refused["arguments"][1])["command"] == "rm -f victim"
        assert refused["originator"] == ("string", originator)
        assert refused["shellgate.rule.pattern"] == ("string", "rm")
        assert refused["shellgate.rule.layer"] == ("string", "user")
        decided = by_name["codex.tool_decision"][0]
        assert (decided["decision"], decided["source"]) == (("string", "approved"),
                                                            ("string", "Config"))  # fmt: skip
        assert decided["shellgate.sandbox"][1] in ("workspace-write", "none")
        assert all(r["resource"]["service.name"] == ("string", "shellgate") for r in logs)
        verified = subprocess.run([sys.executable, "-m", "shellgate", "log", "verify"], env=env,
                                  capture_output=True, text=True, timeout=60)  # fmt: skip
        assert verified.returncode == 0 and "2 entries" in verified.stdout, verified.stdout
    finally:
        receiver.close()
