"""The broker in the real `shellgate serve` process, answered by a pytest-lsp client."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from lspsession import end
from shellgate.approval.matched import MatchedRule
from shellgate.broker import client as broker
from shellgate.broker.decide import decide
from shellgate.broker.discovery import ServerInfo, find_server
from shellgate.broker.protocol import PROTOCOL_VERSION, AgentDecision, AgentRequest

from .conftest import RULES, raw, validate

# One private runtime folder for this module's servers and the clients in this process.
RUNTIME = tempfile.mkdtemp(prefix="sgl-", dir="/tmp")
ENV = {**os.environ, "XDG_RUNTIME_DIR": RUNTIME}
SERVER = [sys.executable, "-m", "shellgate", "serve"]


def plain(obj: Any) -> Any:
    """pygls hands custom params over as named tuples: back to JSON data."""
    if hasattr(obj, "_asdict"):
        return {k: plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain(v) for v in obj]
    return obj


def field(obj: Any, name: str) -> Any:
    return plain(obj)[name]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await end(lsp_client)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def bare(lsp_client: LanguageClient) -> Any:
    yield  # the test shuts the server down itself


@pytest.fixture(autouse=True)
def _runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", RUNTIME)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


class Setup:
    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "codex-home"
        (self.home / "rules").mkdir(parents=True)
        (self.home / "rules" / "default.rules").write_text(RULES)
        self.project = tmp_path / "project"
        (self.project / "sub").mkdir(parents=True)

    def request(self, command: str, agent: str = "claude-code", session: str = "s",
                **kw: Any) -> AgentRequest:  # fmt: skip
        return AgentRequest(agent, session, str(self.project / "sub"), command, **kw)


async def start(client: LanguageClient, tmp_path: Path) -> tuple[Setup, ServerInfo]:
    s = Setup(tmp_path)
    client.status = []  # type: ignore[attr-defined]

    @client.feature("shellgate/status")
    def _status(params: Any) -> None:
        client.status.append(params)  # type: ignore[attr-defined]

    await client.initialize_session(
        T.InitializeParams(
            capabilities=T.ClientCapabilities(experimental={"shellgate": {"approve": True}}),
            workspace_folders=[T.WorkspaceFolder(s.project.as_uri(), "project")],
            initialization_options={"codexHome": str(s.home)},
        )
    )
    for _ in range(100):  # the endpoint starts on `initialized`
        info = find_server(str(s.project / "sub"))
        if info is not None and info.workspace_folders == (str(s.project),):
            return s, info
        await asyncio.sleep(0.05)
    raise AssertionError("the server never registered its broker")


async def ask(s: Setup, info: ServerInfo, command: str, timeout: float = 30, **kw: Any) -> Any:
    """As a hook asks: the chain decides here, the question carries the decision."""
    request = s.request(command, **kw)
    decision = decide(request, codex_home=s.home)
    return await asyncio.to_thread(broker.ask, request, decision, timeout=timeout,
                                   server=info)  # fmt: skip


@pytest.mark.asyncio
async def test_the_editor_shows_the_askers_decision_and_writes_only_what_it_shows(
    client: LanguageClient, tmp_path: Path
) -> None:
    """The decision is made once, by the asker, and carried: the desk does not decide again
    (a reason the rules from disk would not give is what the dialog shows), and a "don't ask
    again" is offered only for a prefix of a command bash runs in what the dialog shows."""
    asked: list[Any] = []

    @client.feature("shellgate/approve")
    def approve(params: Any) -> dict[str, str]:
        asked.append(params)
        offered = [field(c, "id") for c in field(params, "choices")]
        pick = "approved_execpolicy_amendment"
        return {"choice": pick if pick in offered else "denied"}

    s, info = await start(client, tmp_path)
    request = s.request("git status && ls -la")  # the rules from disk allow both
    carried = AgentDecision(
        "prompt", "needs_approval", "asked by the hook: no sandbox here", None, ("ls", "-la"),
        False, matched=(MatchedRule("allow", ("git", "status"), "x.rules:1:1", "read-only git",
                                    layer="user"),),
        notes=("a note from the hook's trace",))  # fmt: skip
    answer = await asyncio.to_thread(broker.ask, request, carried, timeout=30, server=info)
    assert answer is not None and answer.answer == "acceptWithExecpolicyAmendment"
    line = 'prefix_rule(pattern=["ls", "-la"], decision="allow")'
    assert answer.amendment_written == line
    assert (s.home / "rules" / "default.rules").read_text() == RULES + line + "\n"
    shown = plain(asked[0])
    assert shown["reason"] == "asked by the hook: no sandbox here"
    assert [(r["decision"], r["matchedPrefix"], r["layer"]) for r in shown["matchedRules"]] == [
        ("allow", ["git", "status"], "user")]  # fmt: skip
    assert shown["notes"] == ["a note from the hook's trace"]

    # An amendment for a command the request does not run is never offered, nor written.
    sneaky = carried._replace(amendment=("rm",))
    answer = await asyncio.to_thread(broker.ask, request, sneaky, timeout=30, server=info)
    assert answer is not None and answer.answer == "decline"
    assert "approved_execpolicy_amendment" not in [field(c, "id") for c in
                                                   field(asked[1], "choices")]  # fmt: skip
    assert (s.home / "rules" / "default.rules").read_text() == RULES + line + "\n"

    # A carried forbidden decision never reaches the dialog.
    forbidden = carried._replace(decision="forbidden", requirement="forbidden", reason="no")
    answer = await asyncio.to_thread(broker.ask, request, forbidden, timeout=30, server=info)
    assert answer is not None and (answer.answer, answer.message) == (
        "decline", "forbidden by the rules: no")
    assert len(asked) == 2


@pytest.mark.asyncio
async def test_an_outside_agent_is_asked_in_the_editor_with_its_name_and_trace(
    client: LanguageClient, tmp_path: Path
) -> None:
    asked: list[Any] = []
    script = iter([
        {"choice": "approved"},
        {"choice": "abort", "message": "use --dry-run first"},
        {"choice": "approved_execpolicy_amendment"},
    ])  # fmt: skip

    @client.feature("shellgate/approve")
    def approve(params: Any) -> dict[str, str]:
        asked.append(params)
        return next(script)

    s, info = await start(client, tmp_path)
    yes = await ask(s, info, "git push origin main")
    assert (yes.answer, yes.amendment_written) == ("accept", None)
    first = asked[0]
    assert field(first, "title") == "Claude Code wants to run the following command"
    assert field(first, "agent") == {"id": "claude-code", "name": "Claude Code"}
    trace = field(first, "explain")
    assert trace["segments"][0]["matched_rules"][0]["justification"] == "publishing needs a human"
    assert trace["cwd"] == str(s.project / "sub") and trace["decision"] == "prompt"
    assert (
        field(first, "reason") == "`bash -lc 'git push origin main'` requires approval: "
        "publishing needs a human"
    )
    rules = field(first, "matchedRules")
    assert [(field(r, "decision"), field(r, "source"), field(r, "layer")) for r in rules] == [
        ("prompt", f"{s.home}/rules/default.rules:2:1", "user")
    ]
    _validate_approval(first)

    no = await ask(s, info, "git push origin main", agent="gemini")
    assert (no.answer, no.message) == ("cancel", "use --dry-run first")
    assert field(asked[1], "title") == "Gemini CLI wants to run the following command"

    # "Don't ask again": Codex's amendment for a heuristics prompt, appended to default.rules.
    always = await ask(s, info, "make deploy", agent="codex", approval_policy="untrusted")
    line = 'prefix_rule(pattern=["make", "deploy"], decision="allow")'
    assert (always.answer, always.amendment_written) == ("acceptWithExecpolicyAmendment", line)
    assert (s.home / "rules" / "default.rules").read_text() == RULES + line + "\n"
    labels = [field(c, "label") for c in field(asked[2], "choices")]
    assert labels[-1] == "No, and tell Codex what to do differently"
    gemini = field(asked[1], "choices")[-1]["label"]
    assert gemini == "No, and tell Gemini CLI what to do differently"
    ids = [field(c, "id") for c in field(asked[2], "choices")]
    assert ids == ["approved", "approved_execpolicy_amendment", "approved_for_session",
                   "denied", "abort"]  # fmt: skip
    # ... and the rules from disk now allow it, with nobody asked.
    again = s.request("make deploy", approval_policy="untrusted")
    decided = await asyncio.to_thread(broker.decide, again, server=info)
    assert decided is not None and decided.decision == "allow"

    # A forbidden command never reaches the dialog.
    refused = await ask(s, info, "rm -rf build")
    assert refused.answer == "decline"
    assert (
        refused.message == "forbidden by the rules: `bash -lc 'rm -rf build'` rejected: "
        "recursive deletion is never automatic"
    )
    assert len(asked) == 3

    history = await client.protocol.send_request_async("shellgate/approvals", {})
    entries = field(history, "entries")
    assert [(e["agentName"], e["decision"], e["answer"]) for e in entries] == [
        ("Claude Code", "prompt", "accept"), ("Gemini CLI", "prompt", "cancel"),
        ("Codex", "prompt", "acceptWithExecpolicyAmendment"),
        ("Claude Code", "forbidden", "decline"),
    ]  # fmt: skip
    assert entries[1]["message"] == "use --dry-run first"
    assert entries[2]["amendmentWritten"] == line


def _validate_approval(params: Any) -> None:
    import json

    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "rules-schema" / "approval.schema.json")
                        .read_text())  # fmt: skip
    data = plain(params)
    jsonschema.validate(data, {**schema, "$ref": "#/definitions/params"})
    jsonschema.validate(
        data["explain"],
        json.loads(
            (Path(__file__).parents[2] / "rules-schema" / "explain.schema.json").read_text()
        ),
    )


@pytest.mark.asyncio
async def test_eight_agents_times_25_each_answered_once_one_dialog_at_a_time(
    client: LanguageClient, tmp_path: Path
) -> None:
    open_dialogs = 0
    most = 0
    seen: list[str] = []

    @client.feature("shellgate/approve")
    async def approve(params: Any) -> dict[str, str]:
        nonlocal open_dialogs, most
        open_dialogs += 1
        most = max(most, open_dialogs)
        await asyncio.sleep(0.001)
        open_dialogs -= 1
        command = field(params, "command")
        seen.append(command[2])
        n = int(command[2].rsplit(" ", 1)[1])
        return {"choice": "approved" if n % 2 else "denied"}

    s, info = await start(client, tmp_path)
    jobs = [(agent, i) for agent in range(8) for i in range(25)]
    answers = await asyncio.gather(*(
        ask(s, info, f"git push agent{agent} {i}", agent=f"agent-{agent}", timeout=120)
        for agent, i in jobs
    ))  # fmt: skip
    assert most == 1  # one dialog at a time, the others queued
    assert sorted(seen) == sorted(f"git push agent{a} {i}" for a, i in jobs)  # each shown once
    for (agent, i), answer in zip(jobs, answers, strict=True):
        assert answer is not None, (agent, i)
        assert answer.answer == ("accept" if i % 2 else "decline"), (agent, i, answer)
    waiting = [p for p in client.status if field(p, "approvalsWaiting") > 0]  # type: ignore[attr-defined]
    assert max(field(p, "approvalsWaiting") for p in waiting) > 1
    status = await client.protocol.send_request_async("shellgate/status", {})
    assert (field(status, "approvalsWaiting"), field(status, "approvalsShowing")) == (0, 0)


@pytest.mark.asyncio
async def test_unanswered_in_time_is_no_and_the_agent_is_told_why(
    client: LanguageClient, tmp_path: Path
) -> None:
    release = asyncio.Event()

    @client.feature("shellgate/approve")
    async def approve(params: Any) -> dict[str, str]:
        await release.wait()  # a person away from the keyboard
        return {"choice": "approved"}

    s, info = await start(client, tmp_path)
    first, queued = await asyncio.gather(ask(s, info, "git push a", timeout=1),
                                         ask(s, info, "git push b", timeout=1.5))  # fmt: skip
    release.set()
    for answer, seconds in ((first, "1"), (queued, "1.5")):
        assert answer is not None and answer.answer == "timeout"
        assert (
            answer.message == f"nobody answered in the editor within {seconds} s: that counts as no"
        )
    # A question whose carried decision breaks the protocol is an error to its asker, never an
    # entry: nothing is shown for it.
    params = {**s.request("ls").to_json(), "decision": {"decision": "maybe"},
              "timeoutSeconds": 5, "protocol": PROTOCOL_VERSION}  # fmt: skip
    body = {"jsonrpc": "2.0", "id": 1, "method": "shellgate/ask", "params": params}
    reply = await asyncio.to_thread(raw, info.socket, json.dumps(body).encode() + b"\n")
    assert reply["error"]["code"] == -32602, reply
    history = plain(await client.protocol.send_request_async("shellgate/approvals", {}))
    assert [e["answer"] for e in history["entries"]] == ["timeout", "timeout"]
    assert [e["state"] for e in history["entries"]] == ["answered", "answered"]
    assert (history["waiting"], history["showing"]) == (0, 0)


@pytest.mark.asyncio
async def test_added_folders_are_found_and_shutdown_removes_the_discovery_file(
    bare: LanguageClient, tmp_path: Path
) -> None:
    s, info = await start(bare, tmp_path)
    hello = await asyncio.to_thread(broker.hello, info)
    assert hello is not None
    validate("helloResult", hello)
    # A folder added in the editor: hooks under it find this server too.
    other = tmp_path / "other"
    (other / "deep").mkdir(parents=True)
    assert find_server(str(other / "deep")) is None
    bare.workspace_did_change_workspace_folders(T.DidChangeWorkspaceFoldersParams(
        T.WorkspaceFoldersChangeEvent(added=[T.WorkspaceFolder(other.as_uri(), "other")],
                                      removed=[])))  # fmt: skip
    for _ in range(100):
        found = find_server(str(other / "deep"))
        if found is not None:
            break
        await asyncio.sleep(0.05)
    assert found is not None and found.socket == info.socket
    assert set(found.workspace_folders) == {str(s.project), str(other)}
    await asyncio.wait_for(bare.shutdown_session(), 20)
    assert not os.path.exists(info.path) and not os.path.exists(info.socket)
    assert find_server(str(s.project)) is None
