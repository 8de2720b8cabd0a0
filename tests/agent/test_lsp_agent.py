"""The agent in an editor session: pytest-lsp drives the real `shellgate serve` process with the
client capabilities captured from VS Code (code-server), plus ShellGate's approval capability.
The model is the stand-in on 127.0.0.1; rules, approvals and the sandbox are real."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as T
from lsprotocol.converters import get_converter
from pytest_lsp import ClientServerConfig, LanguageClient

from lspsession import end
from shellgate.agent.loop import TURN_ABORTED
from shellgate.agent.standin import StandIn
from shellgate.exec.probe import probe_sandbox

CAPS = Path(__file__).resolve().parents[1] / "lsp" / "capabilities" / "code-server-1.100.3.json"
RULES = 'prefix_rule(pattern=["touch"], decision="prompt", justification="new files need a look")\n'


def capabilities() -> T.ClientCapabilities:
    raw = json.loads(CAPS.read_text())["capabilities"]
    raw["experimental"] = {"shellgate": {"approve": True}}
    return get_converter().structure(raw, T.ClientCapabilities)


@pytest.fixture(scope="module", autouse=True)
def _sandbox() -> None:
    p = probe_sandbox()
    if not p.ok:
        pytest.skip(f"no working sandbox on this machine: {p.reason}")


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "shellgate", "serve"]))
async def client(lsp_client: LanguageClient, tmp_path: Path) -> Any:
    home = tmp_path / "codex-home"
    (home / "rules").mkdir(parents=True)
    (home / "rules" / "agent.rules").write_text(RULES)
    project = tmp_path / "project"
    project.mkdir()
    lsp_client.project = project  # type: ignore[attr-defined]
    lsp_client.tmp = tmp_path  # type: ignore[attr-defined]
    lsp_client.answers = []  # type: ignore[attr-defined]
    lsp_client.asked = []  # type: ignore[attr-defined]
    lsp_client.events = []  # type: ignore[attr-defined]

    @lsp_client.feature("shellgate/approve")
    def on_approve(params: Any) -> dict[str, str]:
        lsp_client.asked.append(params)  # type: ignore[attr-defined]
        return {"choice": lsp_client.answers.pop(0)}  # type: ignore[attr-defined]

    @lsp_client.feature("shellgate/agent/event")
    def on_event(params: Any) -> None:
        lsp_client.events.append(params)  # type: ignore[attr-defined]

    @lsp_client.feature(T.CLIENT_REGISTER_CAPABILITY)
    def _register(params: T.RegistrationParams) -> None:
        return None

    @lsp_client.feature(T.WORKSPACE_INLAY_HINT_REFRESH)
    def _inlay_refresh(params: None) -> None:
        return None

    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=capabilities(), root_uri=project.as_uri(),
        workspace_folders=[T.WorkspaceFolder(project.as_uri(), "project")],
        initialization_options={"codexHome": str(home)}))
    yield
    await end(lsp_client)


def start(client: LanguageClient, url: str, task: str, **extra: Any) -> Any:
    args = {"task": task, "modelUrl": url, "model": "stand-in",
            "transcript": str(client.tmp / "transcript.jsonl"), **extra}  # type: ignore[attr-defined]
    return client.workspace_execute_command_async(
        T.ExecuteCommandParams("shellgate.agent.start", [args]))


def field(obj: Any, name: str) -> Any:
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


async def test_approval_progress_and_stream(client: LanguageClient) -> None:
    with StandIn([{"text": "Creating it.", "tool": "<auto>", "command": "touch made.txt",
                   "extra": {"justification": "Create made.txt?"}},
                  {"text": "Done: made.txt exists."}]) as standin:
        client.answers[:] = ["approved"]  # type: ignore[attr-defined]
        result = await start(client, standin.url, "make a file")
    assert field(result, "status") == "completed"
    assert field(result, "finalText") == "Done: made.txt exists."
    assert (client.project / "made.txt").is_file()  # type: ignore[attr-defined]
    asked = client.asked[0]  # type: ignore[attr-defined]
    assert list(field(asked, "command"))[-1] == "touch made.txt"
    assert "new files need a look" in field(asked, "reason")
    assert next(field(c, "id") for c in field(asked, "choices")) == "approved"
    events = [(field(e, "method"), field(e, "params")) for e in client.events]  # type: ignore[attr-defined]
    text = "".join(field(p, "delta") for m, p in events if m == "item/agentMessage/delta")
    assert text == "Creating it.Done: made.txt exists."
    completed = [field(p, "item") for m, p in events if m == "item/completed"]
    commands = [i for i in completed if field(i, "type") == "commandExecution"]
    assert field(commands[0], "status") == "completed" and field(commands[0], "exitCode") == 0
    reports = next(iter(client.progress_reports.values()))
    messages = [getattr(r, "message", None) for r in reports]
    assert isinstance(reports[0], T.WorkDoneProgressBegin) and reports[0].cancellable
    assert "approval: touch made.txt" in messages and "running: touch made.txt" in messages
    assert isinstance(reports[-1], T.WorkDoneProgressEnd) and reports[-1].message == "completed"
    transcript = Path(field(result, "transcript")).read_text().splitlines()
    assert json.loads(transcript[-1])["method"] == "turn/completed"


async def test_cancel_on_the_progress_interrupts(client: LanguageClient) -> None:
    with StandIn([{"text": "slow", "stall_ms": 10000}]) as standin:
        run = asyncio.ensure_future(start(client, standin.url, "wait"))
        while not client.progress_reports:
            await asyncio.sleep(0.01)
        while not standin.requests:
            await asyncio.sleep(0.01)
        token = next(iter(client.progress_reports))
        t0 = time.monotonic()
        client.window_work_done_progress_cancel(T.WorkDoneProgressCancelParams(token=token))
        result = await run
        elapsed = time.monotonic() - t0
        deadline = time.monotonic() + 2
        while not standin.events and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
    assert field(result, "status") == "interrupted" and elapsed < 3.0  # the stall is 10 s
    assert standin.events and standin.events[0]["event"] == "client_disconnected"
    assert client.progress_reports[token][-1].message == "interrupted: interrupted by the user"


async def test_cancel_command_and_tell_the_agent(client: LanguageClient) -> None:
    with StandIn([{"tool": "<auto>", "command": "touch nope.txt"},
                  {"text": "ok, listing instead"},
                  {"text": "slow", "stall_ms": 10000}]) as standin:
        client.answers[:] = ["abort"]  # type: ignore[attr-defined]
        first = await start(client, standin.url, "make nope.txt")
        assert field(first, "status") == "aborted"
        assert not (client.project / "nope.txt").exists()  # type: ignore[attr-defined]
        thread = field(first, "threadId")
        # The user's words after "No, and tell the agent what to do differently":
        second = await start(client, standin.url, "list files instead", threadId=thread)
        assert field(second, "status") == "completed"
        users = [m["content"] for m in standin.posts[1]["messages"] if m["role"] == "user"]
        assert users == ["make nope.txt", TURN_ABORTED, "list files instead"]
        third = asyncio.ensure_future(start(client, standin.url, "again", threadId=thread))
        while len(standin.requests) < 3:
            await asyncio.sleep(0.01)
        cancelled = await client.workspace_execute_command_async(
            T.ExecuteCommandParams("shellgate.agent.cancel", [{"threadId": thread}]))
        assert field(cancelled, "cancelled") is True
        assert field(await third, "status") == "interrupted"


async def test_bad_arguments_are_clear_errors(client: LanguageClient) -> None:
    with pytest.raises(Exception, match="needs \\{task"):
        await client.workspace_execute_command_async(
            T.ExecuteCommandParams("shellgate.agent.start", [{"task": ""}]))
    with pytest.raises(Exception, match="invalid wire API"):
        await start(client, "http://127.0.0.1:9/v1", "x", wireApi="soap")


NVIM_CAPS = CAPS.parent / "neovim-0.7.2.json"


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "shellgate", "serve"]))
async def nvim(lsp_client: LanguageClient, tmp_path: Path) -> Any:
    """Neovim 0.7.2's capabilities: no ShellGate approval request, so questions arrive as
    `window/showMessageRequest` with the choices as actions."""
    home = tmp_path / "codex-home"
    (home / "rules").mkdir(parents=True)
    (home / "rules" / "agent.rules").write_text(RULES)
    project = tmp_path / "project"
    project.mkdir()
    lsp_client.project = project  # type: ignore[attr-defined]
    lsp_client.tmp = tmp_path  # type: ignore[attr-defined]
    lsp_client.shown = []  # type: ignore[attr-defined]

    @lsp_client.feature(T.WINDOW_SHOW_MESSAGE_REQUEST)
    def on_message(params: T.ShowMessageRequestParams) -> T.MessageActionItem | None:
        lsp_client.shown.append(params)  # type: ignore[attr-defined]
        return next((a for a in params.actions or [] if a.title == "Yes, proceed"), None)

    @lsp_client.feature(T.CLIENT_REGISTER_CAPABILITY)
    def _register(params: T.RegistrationParams) -> None:
        return None

    raw = json.loads(NVIM_CAPS.read_text())["capabilities"]
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=get_converter().structure(raw, T.ClientCapabilities),
        root_uri=project.as_uri(),
        workspace_folders=[T.WorkspaceFolder(project.as_uri(), "project")],
        initialization_options={"codexHome": str(home)}))
    yield
    await end(lsp_client)


async def test_neovim_answers_through_show_message_request(nvim: LanguageClient) -> None:
    # The command is model text: its escape sequence must reach the user as visible text.
    with StandIn([{"tool": "<auto>", "command": "touch nvim.txt; echo '\x1b[2J'"},
                  {"text": "made"}]) as standin:
        result = await start(nvim, standin.url, "make nvim.txt")
    assert field(result, "status") == "completed"
    assert (nvim.project / "nvim.txt").is_file()  # type: ignore[attr-defined]
    shown = nvim.shown[0]  # type: ignore[attr-defined]
    assert "touch nvim.txt" in shown.message and "\x1b" not in shown.message
    assert "\\x1b[2J" in shown.message
    assert next(a.title for a in shown.actions) == "Yes, proceed"


async def test_the_reviewer_answers_instead_of_the_dialog(client: LanguageClient) -> None:
    """approvals_reviewer = "auto_review" in Codex's config: the agent's question goes to the
    reviewer on the thread's own model (here over Chat Completions), never to the dialog."""
    home = client.tmp / "codex-home"  # type: ignore[attr-defined]
    (home / "config.toml").write_text('approvals_reviewer = "auto_review"\n')
    with StandIn([{"tool": "<auto>", "command": "touch reviewed.txt"},
                  {"text": '{"outcome": "allow", "risk_level": "low"}'},
                  {"text": "Done."}]) as standin:
        result = await start(client, standin.url, "make reviewed.txt")
        review = standin.posts[1]
    assert field(result, "status") == "completed"
    assert (client.project / "reviewed.txt").is_file()  # type: ignore[attr-defined]
    assert client.asked == []  # type: ignore[attr-defined]
    assert review["response_format"]["json_schema"]["name"] == "codex_output_schema"
    assert review["messages"][0]["content"].startswith("You are judging one planned")
    assert any("user: make reviewed.txt" in m["content"] for m in review["messages"])
    history = await client.protocol.send_request_async("shellgate/approvals", {})
    (entry,) = [e for e in field(history, "entries") if field(e, "state") == "reviewed"]
    assert field(entry, "agent") == "shellgate" and field(entry, "answer") == "accept"
    assert field(entry, "command")[-1] == "touch reviewed.txt"  # as `bash -lc` runs it
    review = field(entry, "review")
    assert field(review, "outcome") == "allow" and field(review, "riskLevel") == "low"
