"""The Policy view's data through the real `shellgate serve`: which layers and files govern the
folder, each file's rules by program and load state, trust, and a push on every change."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path
from typing import Any

import pytest_lsp
from pytest_lsp import LanguageClient

from lspsession import end

from .conftest import CONFIG, PROFILES, Env, env_of, initialize
from .test_features import plain

USER = (
    'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
    'prefix_rule(pattern = ["git", "status"], decision = "allow")\n'
    'prefix_rule(pattern = ["rm"], decision = "forbidden", justification = "no")\n'
)


async def _policy(client: LanguageClient) -> dict[str, Any]:
    result: dict[str, Any] = plain(await client.protocol.send_request_async("shellgate/policy", {}))
    return result


async def test_layers_files_rules_and_trust(client: LanguageClient) -> None:
    env = env_of(client)
    (env.home / "rules" / "default.rules").write_text(USER)
    (env.project / ".codex" / "rules" / "p.rules").write_text(
        'prefix_rule(pattern = ["make"], decision = "prompt")\n'
    )
    (folder,) = (await _policy(client))["folders"]
    assert folder["root"] == str(env.project)
    assert folder["trust"]["codexLoads"] is False  # Codex does not trust the project yet
    layers = {layer["layer"]: layer for layer in folder["layers"]}
    (user_file,) = layers["user"]["files"]
    assert user_file["path"] == str(env.home / "rules" / "default.rules")
    assert user_file["rules"] == 3 and user_file["error"] is None
    by_program = {p["program"]: p["rules"] for p in user_file["programs"]}
    assert [r["pattern"] for r in by_program["git"]] == ["git push", "git status"]
    assert by_program["rm"] == [{"pattern": "rm", "decision": "forbidden",
                                 "justification": "no", "line": 3, "column": 1}]  # fmt: skip
    assert [f["rules"] for f in layers["project"]["files"]] == [1]

    # Trusting the project writes what Codex writes, and the folder reads as trusted.
    done = plain(await client.protocol.send_request_async(
        "shellgate/trustProject", {"folder": str(env.project)}))  # fmt: skip
    config = tomllib.loads((env.home / "config.toml").read_text())
    assert config["projects"][str(env.project.resolve())]["trust_level"] == "trusted"
    assert done["config"] == str(env.home / "config.toml")
    (folder,) = (await _policy(client))["folders"]
    assert folder["trust"]["codexLoads"] is True


@pytest_lsp.fixture(config=CONFIG, params=PROFILES)
async def watched(lsp_client: LanguageClient, request: Any, tmp_path: Path) -> Any:
    env = Env(tmp_path, request.param)
    lsp_client.env = env  # type: ignore[attr-defined]
    lsp_client.pushed = []  # type: ignore[attr-defined]

    @lsp_client.feature("shellgate/policyChanged")
    def _changed(params: Any) -> None:
        lsp_client.pushed.append(params)  # type: ignore[attr-defined]

    await initialize(lsp_client, env)
    yield
    await end(lsp_client)


async def test_a_refused_file_carries_codexs_error_and_a_change_is_pushed(
    watched: LanguageClient,
) -> None:
    client = watched
    env = env_of(client)
    pushed: list[object] = client.pushed  # type: ignore[attr-defined]
    path = env.home / "rules" / "default.rules"
    path.write_text(USER)
    (folder,) = (await _policy(client))["folders"]
    assert folder["loads"] is True
    pushed.clear()
    path.write_text(USER + 'prefix_rule(pattern = [], decision = "allow")\n')
    async with asyncio.timeout(20):  # watchfiles sees the change; the server pushes
        while not pushed:
            await asyncio.sleep(0.05)
    (folder,) = (await _policy(client))["folders"]
    (user_file,) = next(x for x in folder["layers"] if x["layer"] == "user")["files"]
    assert folder["loads"] is False
    assert user_file["error"]["line"] == 4 and user_file["error"]["message"]
