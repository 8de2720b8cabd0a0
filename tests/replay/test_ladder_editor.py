"""The ladder in the editor's dialog: `shellgate/approve` carries the rungs, the client's
`rung` picks one, and the rule lands in default.rules with its examples (the real server
process, driven by pytest-lsp)."""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

# The server reads the user's histories from $HOME: give it one with a known past.
HOME = Path(tempfile.mkdtemp(prefix="shellgate-ladder-home-"))
atexit.register(shutil.rmtree, HOME, True)
(HOME / ".bash_history").write_text("git init -q\ngit init -q\ngit init --bare x\ngit log\n")
ENV = {k: v for k, v in os.environ.items() if k not in (
    "HISTFILE", "ZDOTDIR", "XDG_DATA_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR",
    "GEMINI_CLI_HOME", "SHELLGATE_REPLAY", "CODEX_HOME")}  # fmt: skip
ENV["HOME"] = str(HOME)
SCHEMA = json.loads((Path(__file__).parents[2] / "rules-schema" / "approval.schema.json")
                    .read_text("utf-8"))
SERVER = [sys.executable, "-m", "shellgate", "serve"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await asyncio.wait_for(lsp_client.shutdown_session(), 20)


def plain(obj: Any) -> Any:
    """pygls hands custom params over as named tuples: back to JSON data."""
    if hasattr(obj, "_asdict"):
        return {k: plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain(v) for v in obj]
    return obj


@pytest.mark.asyncio
async def test_the_dialog_offers_the_ladder_and_writes_the_picked_rung(
    client: LanguageClient, tmp_path: Path
) -> None:
    home = tmp_path / "codex-home"
    (home / "rules").mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    asked: list[Any] = []

    @client.feature("shellgate/approve")
    def approve(params: Any) -> dict[str, object]:
        asked.append(plain(params))
        return {"choice": "approved_execpolicy_amendment", "rung": 1}

    await client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(experimental={"shellgate": {"approve": True}}),
        root_uri=project.as_uri(),
        workspace_folders=[T.WorkspaceFolder(project.as_uri(), "project")],
        initialization_options={"codexHome": str(home), "approvalPolicy": "untrusted"},
    ))  # fmt: skip
    result = await client.workspace_execute_command_async(T.ExecuteCommandParams(
        "shellgate.runCommand", [{"command": ["git", "init", "-q"], "cwd": str(project)}]))
    assert (result["exitCode"] if isinstance(result, dict) else result.exitCode) == 0
    (params,) = asked
    ladder = params["ladder"]
    assert [(r["kind"], r["pattern"], r["allowed"], r["askedBefore"]) for r in ladder] == [
        ("codex", ["git", "init", "-q"], 2, 2), ("family", ["git", "init"], 3, 3),
        ("program", ["git"], 4, 4)]
    assert ["git", "push", "--force"] in ladder[2]["admits"]
    assert all(r["path"] == str(home / "rules" / "default.rules") for r in ladder)
    jsonschema.validate(params, {**SCHEMA, "$ref": "#/definitions/params"})
    text = (home / "rules" / "default.rules").read_text()
    assert text == ladder[1]["rule"] + "\n"
    assert 'match=[["git", "init", "-q"]], not_match=[' in text
