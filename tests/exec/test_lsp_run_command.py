"""`shellgate.runCommand` and editor approvals through the real `shellgate serve` process."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from lspsession import end
from shellgate.agent.standin import StandIn

SERVER = [sys.executable, "-m", "shellgate", "serve"]


async def start(client: LanguageClient, tmp_path: Path, *, custom: bool) -> Path:
    home = tmp_path / "codex-home"
    (home / "rules").mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    caps = T.ClientCapabilities(
        window=T.WindowClientCapabilities(show_message=T.ShowMessageRequestClientCapabilities()),
        experimental={"shellgate": {"approve": True}} if custom else None,
    )
    await client.initialize_session(
        T.InitializeParams(
            capabilities=caps,
            root_uri=project.as_uri(),
            workspace_folders=[T.WorkspaceFolder(project.as_uri(), "project")],
            initialization_options={"codexHome": str(home), "approvalPolicy": "untrusted"},
        )
    )
    return project


async def run(client: LanguageClient, project: Path, command: list[str] | str) -> Any:
    return await client.workspace_execute_command_async(
        T.ExecuteCommandParams("shellgate.runCommand",
                               [{"command": command, "cwd": str(project)}])
    )  # fmt: skip


def field(obj: Any, name: str) -> Any:
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await end(lsp_client)


@pytest.mark.asyncio
async def test_custom_request_carries_the_question_and_routes_two_pending(
    client: LanguageClient, tmp_path: Path
) -> None:
    asked: list[Any] = []
    both = asyncio.Event()

    @client.feature("shellgate/approve")
    async def approve(params: Any) -> dict[str, str]:
        asked.append(params)
        if len(asked) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 20)  # hold both until both are pending
        command = list(field(params, "command"))
        return {"choice": "approved" if command == ["touch", "yes-file"] else "denied"}

    project = await start(client, tmp_path, custom=True)
    yes, no = await asyncio.gather(run(client, project, ["touch", "yes-file"]),
                                   run(client, project, ["touch", "no-file"]))  # fmt: skip
    assert field(yes, "status") == "completed" and field(yes, "exitCode") == 0
    assert field(no, "status") == "denied" and field(no, "reason") == "rejected by user"
    assert (project / "yes-file").exists() and not (project / "no-file").exists()
    first = asked[0]
    assert field(first, "kind") == "exec" and field(first, "cwd") == str(project)
    ids = [field(c, "id") for c in field(first, "choices")]
    assert ids == ["approved", "approved_execpolicy_amendment", "approved_for_session",
                   "denied", "abort"]  # fmt: skip
    amendment = field(first, "amendment")
    assert field(amendment, "text").startswith('prefix_rule(pattern=["touch", ')
    assert field(amendment, "path") == str(tmp_path / "codex-home" / "rules" / "default.rules")
    rules = field(first, "matchedRules")
    assert [field(r, "kind") for r in rules] == ["heuristics"]


@pytest.mark.asyncio
async def test_amendment_from_the_editor_is_honoured_at_once(
    client: LanguageClient, tmp_path: Path
) -> None:
    asked: list[Any] = []

    @client.feature("shellgate/approve")
    def approve(params: Any) -> dict[str, str]:
        asked.append(params)
        return {"choice": "approved_execpolicy_amendment"}

    project = await start(client, tmp_path, custom=True)
    for _ in range(2):
        r = await run(client, project, "touch made")
        assert field(r, "exitCode") == 0, r
    assert len(asked) == 1
    text = (tmp_path / "codex-home" / "rules" / "default.rules").read_text()
    assert text == 'prefix_rule(pattern=["touch", "made"], decision="allow")\n'


@pytest.mark.asyncio
async def test_other_clients_get_show_message_request(
    client: LanguageClient, tmp_path: Path
) -> None:
    messages: list[T.ShowMessageRequestParams] = []

    @client.feature(T.WINDOW_SHOW_MESSAGE_REQUEST)
    def show(params: T.ShowMessageRequestParams) -> T.MessageActionItem | None:
        messages.append(params)
        if "keep" in params.message:
            return T.MessageActionItem(title="Yes, proceed")
        return None  # dismissed: no

    project = await start(client, tmp_path, custom=False)
    kept = await run(client, project, ["touch", "keep"])
    dismissed = await run(client, project, ["touch", "drop"])
    assert field(kept, "status") == "completed" and (project / "keep").exists()
    assert field(dismissed, "status") == "denied" and not (project / "drop").exists()
    titles = [a.title for a in messages[0].actions or []]
    assert titles == [
        "Yes, proceed",
        "Yes, and don't ask again for commands that start with `touch keep`",
        "Yes, and don't ask again for this command in this session",
        "No, continue without running it",
        "No, and stop",  # nobody to tell: the editor's Run Command
    ]
    assert "$ touch keep" in messages[0].message


@pytest.mark.asyncio
async def test_bad_arguments_are_a_clear_error(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, custom=True)
    with pytest.raises(Exception, match="needs \\{command"):
        await client.workspace_execute_command_async(
            T.ExecuteCommandParams("shellgate.runCommand", [{"command": []}])
        )


@pytest.mark.asyncio
async def test_the_reviewers_verdict_is_in_show_approvals(
    client: LanguageClient, tmp_path: Path
) -> None:
    """approvals_reviewer = "auto_review": Run Command's question goes to the reviewer, never
    to a dialog, and Show Approvals lists the verdict with its risk and rationale."""
    asked: list[Any] = []
    client.feature("shellgate/approve")(lambda params: asked.append(params) or {"choice": "denied"})
    home = tmp_path / "codex-home"
    verdict = {"outcome": "deny", "risk_level": "high", "user_authorization": "low",
               "rationale": "nobody asked for this file"}
    with StandIn([{"text": json.dumps(verdict)}]) as standin:
        (home / "rules").mkdir(parents=True)
        (home / "rules" / "default.rules").write_text(
            'prefix_rule(pattern=["touch"], decision="prompt")\n')
        (home / "config.toml").write_text(
            'approvals_reviewer = "auto_review"\nmodel = "stand-in"\nmodel_provider = "s"\n'
            f'[model_providers.s]\nbase_url = "{standin.url}"\nwire_api = "chat"\n')
        project = tmp_path / "project"
        project.mkdir()
        await client.initialize_session(T.InitializeParams(
            capabilities=T.ClientCapabilities(experimental={"shellgate": {"approve": True}}),
            root_uri=project.as_uri(),
            workspace_folders=[T.WorkspaceFolder(project.as_uri(), "project")],
            initialization_options={"codexHome": str(home), "approvalPolicy": "on-request"}))
        result = await client.workspace_execute_command_async(T.ExecuteCommandParams(
            "shellgate.runCommand", [{"command": ["touch", "reviewed"], "cwd": str(project)}]))
    assert field(result, "status") == "denied" and field(result, "answeredBy") == "reviewer"
    assert "nobody asked for this file" in field(result, "reason")
    assert asked == [] and not (project / "reviewed").exists()
    history = await client.protocol.send_request_async("shellgate/approvals", {})
    (entry,) = [e for e in field(history, "entries") if field(e, "state") == "reviewed"]
    assert field(entry, "agent") == "editor" and field(entry, "answer") == "decline"
    review = field(entry, "review")
    assert field(review, "outcome") == "deny" and field(review, "riskLevel") == "high"
    assert field(review, "rationale") == "nobody asked for this file"
    assert field(review, "model") == "stand-in"
