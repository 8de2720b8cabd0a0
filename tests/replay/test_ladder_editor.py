"""The ladder in the editor's dialog: `shellgate/approve` carries the rungs, the client's
`rung` picks one, and the rule lands in default.rules with its examples (the real server
process, driven by pytest-lsp), for `shellgate.runCommand` and for an outside agent asking
through the broker."""

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

from lspsession import end

# The server reads the user's histories from $HOME: give it one with a known past.
HOME = Path(tempfile.mkdtemp(prefix="shellgate-ladder-home-"))
atexit.register(shutil.rmtree, HOME, True)
(HOME / ".bash_history").write_text("git init -q\ngit init -q\ngit init --bare x\ngit log\n")
ENV = {k: v for k, v in os.environ.items() if k not in (
    "HISTFILE", "ZDOTDIR", "XDG_DATA_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR",
    "GEMINI_CLI_HOME", "SHELLGATE_REPLAY", "CODEX_HOME")}  # fmt: skip
ENV["HOME"] = str(HOME)
# A private runtime folder for the broker's socket (short: a socket path holds 107 bytes).
RUNTIME = tempfile.mkdtemp(prefix="sgr-", dir="/tmp")
atexit.register(shutil.rmtree, RUNTIME, True)
ENV["XDG_RUNTIME_DIR"] = RUNTIME
SCHEMA = json.loads((Path(__file__).parents[2] / "rules-schema" / "approval.schema.json")
                    .read_text("utf-8"))
SERVER = [sys.executable, "-m", "shellgate", "serve"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await end(lsp_client)


def plain(obj: Any) -> Any:
    """pygls hands custom params over as named tuples: back to JSON data."""
    if hasattr(obj, "_asdict"):
        return {k: plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain(v) for v in obj]
    return obj


async def editor(client: LanguageClient, tmp_path: Path, rung: int, **options: Any
                 ) -> tuple[Path, Path, list[Any]]:  # fmt: skip
    """An editor on a fresh project and $CODEX_HOME whose user picks `rung` of every dialog's
    ladder: (the Codex home, the project, the dialogs' params as they come)."""
    home = tmp_path / "codex-home"
    (home / "rules").mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    asked: list[Any] = []

    @client.feature("shellgate/approve")
    def approve(params: Any) -> dict[str, object]:
        asked.append(plain(params))
        return {"choice": "approved_execpolicy_amendment", "rung": rung}

    await client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(experimental={"shellgate": {"approve": True}}),
        root_uri=project.as_uri(),
        workspace_folders=[T.WorkspaceFolder(project.as_uri(), "project")],
        initialization_options={"codexHome": str(home), **options},
    ))  # fmt: skip
    return home, project, asked


@pytest.mark.asyncio
async def test_the_dialog_offers_the_ladder_and_writes_the_picked_rung(
    client: LanguageClient, tmp_path: Path
) -> None:
    home, project, asked = await editor(client, tmp_path, 1, approvalPolicy="untrusted")
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


@pytest.mark.asyncio
async def test_an_outside_agents_question_climbs_the_ladder_too(
    client: LanguageClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shellgate.broker import client as broker
    from shellgate.broker.decide import decide
    from shellgate.broker.discovery import find_server
    from shellgate.broker.protocol import AgentRequest

    monkeypatch.setenv("XDG_RUNTIME_DIR", RUNTIME)
    home, project, asked = await editor(client, tmp_path, 2)
    for _ in range(100):  # the endpoint starts on `initialized`
        info = find_server(str(project))
        if info is not None:
            break
        await asyncio.sleep(0.05)
    assert info is not None
    request = AgentRequest("claude-code", "s", str(project), "git init -q",
                           approval_policy="untrusted")
    decision = decide(request, codex_home=home)  # as the hook does, before it asks
    answer = await asyncio.to_thread(broker.ask, request, decision, timeout=60, server=info)
    assert answer is not None and answer.answer == "acceptWithExecpolicyAmendment"
    ladder = asked[0]["ladder"]
    assert [r["pattern"] for r in ladder] == [["git", "init", "-q"], ["git", "init"], ["git"]]
    assert answer.amendment_written == ladder[2]["rule"]
    assert ladder[2]["rule"] == 'prefix_rule(pattern=["git"], decision="allow", ' \
        'match=[["git", "init", "-q"]])'
    assert (home / "rules" / "default.rules").read_text() == ladder[2]["rule"] + "\n"
