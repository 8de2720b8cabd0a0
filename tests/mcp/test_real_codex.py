"""The real Codex CLI (0.169.0 and 0.171.0) as an MCP client of `shellgate mcp`, configured by
`shellgate mcp install codex`, against the stand-in Responses model: the model calls ShellGate's
`shell` tool, the command runs through ShellGate (sandboxed, rules applied) and its output comes
back to the model."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_codex_calls_the_shell_tool(scratch: Path, version: str, probe: object) -> None:
    codex = realtools.codex(version)
    home, ws = scratch / "codex-home", scratch / "ws"
    ws.mkdir()
    (home / "rules").mkdir(parents=True)
    (home / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["rm"], decision="forbidden", justification="use trash instead")\n')
    (ws / "keep").write_text("x")
    installed = subprocess.run(
        [sys.executable, "-m", "shellgate", "mcp", "install", "codex", "--codex-home", str(home)],
        capture_output=True, text=True, check=True)  # fmt: skip
    assert "default_tools_approval_mode" in installed.stdout
    script = [
        {"tool_calls": [{"name": "shell", "namespace": "mcp__shellgate",
                         "arguments": {"command": "echo via-mcp > out.txt; cat out.txt; "
                                                  "echo x > ../escaped.txt"}}]},
        {"tool_calls": [{"name": "shell", "namespace": "mcp__shellgate",
                         "arguments": {"command": "rm -rf keep"}}]},
        {"text": "done"},
    ]  # fmt: skip
    client = (
        f'timeout 120 {codex} exec --json --skip-git-repo-check --ephemeral -C "{ws}" '
        "-c model_provider=standin "
        '-c "model_providers.standin={name=\\"standin\\",base_url=\\"http://127.0.0.1:$PORT/v1\\",'
        'wire_api=\\"responses\\"}" '
        "-c model=stand-in -c check_for_update_on_startup=false -c analytics.enabled=false "
        "'run it'"
    )
    rc, requests = run_client(
        scratch / "run", script, client,
        {"CODEX_HOME": str(home), "HOME": str(scratch)})  # fmt: skip
    out = scratch / "run"
    assert rc == 0, dump(out)
    posts = [r for r in requests if r.get("method") == "POST"]
    assert len(posts) == 3, dump(out)
    # What the model was told after each call (Codex sends the MCP result as the call's output).
    outputs = [json.dumps(p["body"]["input"][-1]) for p in posts[1:]]
    assert "Exit code: 1" in outputs[0] and "via-mcp" in outputs[0], outputs[0]
    assert "use trash instead" in outputs[1], outputs[1]
    assert (ws / "out.txt").read_text() == "via-mcp\n"  # ran in the workspace
    assert not (scratch / "escaped.txt").exists()  # the sandbox held
    assert (ws / "keep").exists()  # the forbidden rm never ran
