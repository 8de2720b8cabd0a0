"""`workspace/didChangeConfiguration`: settings apply without restarting the server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types as T
from pytest_lsp import LanguageClient

from .conftest import env_of
from .test_features import plain


async def explain(client: LanguageClient, command: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = plain(
        await client.protocol.send_request_async("shellgate/explain", {"command": command})
    )
    return result


async def until(client: LanguageClient, command: list[str], check: Any) -> dict[str, Any]:
    """The notification has no answer: ask until the change shows (or give up after 10 s)."""
    for _ in range(200):
        result = await explain(client, command)
        if check(result):
            return result
        await asyncio.sleep(0.05)
    raise AssertionError(f"the change never applied: {result}")


def change(client: LanguageClient, settings: Any) -> None:
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams(settings=settings))


async def test_policy_sandbox_and_codex_home_apply_live(
    client: LanguageClient, tmp_path: Path
) -> None:
    before = await explain(client, ["ls"])
    assert before["context"]["approval_policy"] == "on-request"
    # VS Code pushes its whole `shellgate` section, with its own key for the sandbox.
    change(client, {"shellgate": {"approvalPolicy": "never", "sandboxMode": "read-only"}})
    after = await until(client, ["ls"], lambda r: r["context"]["approval_policy"] == "never")
    assert after["context"]["sandbox"] == "read-only"

    other = tmp_path / "other-home"
    (other / "rules").mkdir(parents=True)
    (other / "rules" / "x.rules").write_text(
        'prefix_rule(pattern = ["curl"], decision = "forbidden", justification = "no network")\n'
    )
    assert (await explain(client, ["curl", "x"]))["decision"] != "forbidden"
    change(client, {"shellgate": {"codexHome": str(other)}})  # other keys stay as they were
    moved = await until(client, ["curl", "x"], lambda r: r["decision"] == "forbidden")
    assert moved["context"]["approval_policy"] == "never"
    assert moved["segments"][0]["matched_rules"][0]["file"] == str(other / "rules" / "x.rules")

    # The new home is watched: a rule written there shows without any further setting.
    (other / "rules" / "y.rules").write_text(
        'prefix_rule(pattern = ["wget"], decision = "prompt")\n'
    )
    await until(client, ["wget", "x"], lambda r: r["decision"] == "prompt")
    assert env_of(client).home != other


async def test_a_bad_value_keeps_what_worked(client: LanguageClient) -> None:
    change(client, {"shellgate": {"approvalPolicy": "sometimes", "sandboxMode": "read-only"}})
    result = await until(client, ["ls"], lambda r: r["context"]["sandbox"] == "read-only")
    assert result["context"]["approval_policy"] == "on-request"
