"""The real Gemini CLI (`gemini -p`) as an MCP client of `shellgate mcp`, configured by
`shellgate mcp install gemini` (`trust: true`), against a stand-in Gemini API: the model's call of
`mcp_shellgate_shell` runs through ShellGate and its output comes back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import realtools
from realclients import dump, home_dir, run_client

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def scratch() -> Iterator[Path]:
    yield from home_dir()


def test_gemini_calls_the_shell_tool(scratch: Path, probe: object) -> None:
    gemini = realtools.gemini()
    home, ws = scratch / "home", scratch / "ws"
    (home / ".gemini").mkdir(parents=True)
    ws.mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False}}))
    env = {"HOME": str(home), "CODEX_HOME": str(scratch / "codex-home")}
    subprocess.run([sys.executable, "-m", "shellgate", "mcp", "install", "gemini"],
                   check=True, capture_output=True, env={**os.environ, **env})  # fmt: skip
    script = [
        {"tool_calls": [{"name": "mcp_shellgate_shell",
                         "arguments": {"command": "echo via-gemini > out.txt; cat out.txt"}}]},
        {"text": "done"},
    ]  # fmt: skip
    client = (
        f'cd "{ws}" && GEMINI_API_KEY=dummy GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" '
        "GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_CLI_NO_RELAUNCH=true "
        f"timeout 120 {gemini} -p 'run it' -m gemini-2.5-flash"
    )
    rc, requests = run_client(scratch / "run", script, client, env)
    out = scratch / "run"
    assert rc == 0, dump(out)
    main = [r for r in requests if r.get("kind") == "main"]
    assert len(main) == 2, dump(out)
    told = json.dumps(main[1]["body"]["contents"][-1])
    assert "functionResponse" in told and "via-gemini" in told and "Exit code: 0" in told, told
    assert (ws / "out.txt").read_text() == "via-gemini\n"
