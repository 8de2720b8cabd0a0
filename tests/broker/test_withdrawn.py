"""A question that is over before the person answers (a timeout, an agent gone) leaves the
editor at once: the real `shellgate serve` cancels its `shellgate/approve` ($/cancelRequest),
says why (`shellgate/approveClosed`), shows the next question, and reports a late click."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from shellgate.broker.decide import decide
from shellgate.broker.protocol import PROTOCOL_VERSION

from . import test_lsp_broker as _lsp
from .test_lsp_broker import ask, field, plain, start

pytestmark = pytest.mark.asyncio
client, _runtime = _lsp.client, _lsp._runtime  # its real server and private runtime folder


class Editor:
    """The client's side: every question shown, the ones withdrawn, the notices."""

    def __init__(self, client: LanguageClient) -> None:
        self.shown: list[str] = []  # the commands, in the order their dialogs opened
        self.cancelled: list[str] = []  # dialogs the server's $/cancelRequest closed
        self.closed: list[dict[str, Any]] = []  # shellgate/approveClosed
        self.changed = asyncio.Event()
        self.answers: dict[str, dict[str, str]] = {}  # command -> the click
        self.late: dict[str, dict[str, str]] = {}  # command -> a click made after the cancel

        @client.feature("shellgate/approve")
        async def approve(params: Any) -> dict[str, str]:
            command = field(params, "command")[2]
            self.shown.append(command)
            self._poke()
            try:
                while command not in self.answers:
                    await asyncio.sleep(0.02)  # a person reading
                return self.answers[command]
            except asyncio.CancelledError:
                self.cancelled.append(command)
                self._poke()
                if command in self.late:
                    return self.late[command]  # the click was on its way: it still arrives
                raise

        @client.feature("shellgate/approveClosed")
        def closed(params: Any) -> None:
            self.closed.append(plain(params))
            self._poke()

    def _poke(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    async def until(self, predicate: Any, timeout: float = 15) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                await self.changed.wait()


async def test_a_timed_out_question_closes_and_the_next_one_shows(
    client: LanguageClient, tmp_path: Any
) -> None:
    editor = Editor(client)
    s, info = await start(client, tmp_path)
    first = asyncio.ensure_future(ask(s, info, "git push a", timeout=1))
    await editor.until(lambda: editor.shown == ["git push a"])
    queued = asyncio.ensure_future(ask(s, info, "git push b", timeout=30))
    answer = await first
    assert answer is not None and answer.answer == "timeout"
    await editor.until(lambda: editor.shown == ["git push a", "git push b"])
    assert editor.cancelled == ["git push a"]  # closed before the next one opened
    history = plain(await client.protocol.send_request_async("shellgate/approvals", {}))
    assert editor.closed == [{
        "id": history["entries"][0]["id"],
        "message": "Claude Code's request to run `git push a` timed out: it was refused",
    }]  # fmt: skip
    editor.answers["git push b"] = {"choice": "approved"}
    second = await queued
    assert second is not None and second.answer == "accept"
    assert len(editor.closed) == 1 and client.messages == []  # nothing else to tell


async def test_an_agent_that_hangs_up_takes_its_questions_off_screen_and_out_of_the_queue(
    client: LanguageClient, tmp_path: Any
) -> None:
    editor = Editor(client)
    s, info = await start(client, tmp_path)

    def connect(command: str) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(info.socket)
        request = s.request(command)
        params = {**request.to_json(), "timeoutSeconds": 60, "protocol": PROTOCOL_VERSION,
                  "decision": decide(request, codex_home=s.home).to_json()}  # fmt: skip
        body = {"jsonrpc": "2.0", "id": 1, "method": "shellgate/ask", "params": params}
        sock.sendall(json.dumps(body).encode() + b"\n")
        return sock

    shown = connect("git push shown")
    await editor.until(lambda: editor.shown == ["git push shown"])
    queued = connect("git push queued")
    for _ in range(200):  # until the desk has it queued behind the dialog
        history = plain(await client.protocol.send_request_async("shellgate/approvals", {}))
        if history["waiting"] == 1:
            break
        await asyncio.sleep(0.02)
    assert history["waiting"] == 1
    queued.close()  # its agent gone while it waited: it never shows
    shown.close()  # the agent on screen gives up
    await editor.until(lambda: editor.closed != [])
    assert editor.cancelled == ["git push shown"]
    assert editor.closed[0]["message"] == (
        "Claude Code's request to run `git push shown` was withdrawn: Claude Code stopped "
        "waiting for the answer, nothing ran"
    )
    # The editor is free for the next agent at once.
    later = asyncio.ensure_future(ask(s, info, "git push later", timeout=30))
    await editor.until(lambda: "git push later" in editor.shown)
    editor.answers["git push later"] = {"choice": "denied"}
    answer = await later
    assert answer is not None and answer.answer == "decline"
    assert editor.shown == ["git push shown", "git push later"]
    history = plain(await client.protocol.send_request_async("shellgate/approvals", {}))
    assert [(e["command"][2], e["state"]) for e in history["entries"]] == [
        ("git push shown", "gone"), ("git push queued", "gone"), ("git push later", "answered"),
    ]  # fmt: skip
    assert (history["waiting"], history["showing"]) == (0, 0)


async def test_a_click_that_arrives_after_the_timeout_is_reported_not_used(
    client: LanguageClient, tmp_path: Any
) -> None:
    editor = Editor(client)
    editor.late["git push origin main"] = {"choice": "approved"}
    s, info = await start(client, tmp_path)
    answer = await ask(s, info, "git push origin main", timeout=1)
    assert answer is not None and answer.answer == "timeout"  # the late yes changes nothing
    for _ in range(200):
        if client.messages:
            break
        await asyncio.sleep(0.02)
    assert [m.message for m in client.messages] == [
        "ShellGate: your answer \"Yes, proceed\" came too late: Claude Code's request to run "
        "`bash -lc 'git push origin main'` was already over (it counted as no), so nothing ran "
        "on it"
    ]
    history = plain(await client.protocol.send_request_async("shellgate/approvals", {}))
    assert [e["answer"] for e in history["entries"]] == ["timeout"]


async def test_a_cancelled_mcp_call_withdraws_its_question_at_once(
    client: LanguageClient, tmp_path: Any
) -> None:
    """The MCP face waits for the editor in a thread; cancelling the call (the MCP client gave
    up) makes the broker client hang up, so the question closes now, not at its timeout."""
    from shellgate.mcp import approve

    editor = Editor(client)
    s, _ = await start(client, tmp_path)
    call = asyncio.ensure_future(approve.permission_answer(
        "Bash", {"command": "git push origin main"}, cwd=str(s.project / "sub"),
        session_id="mcp-1", timeout=120))  # fmt: skip
    await editor.until(lambda: editor.shown == ["git push origin main"])
    started = asyncio.get_running_loop().time()
    call.cancel()
    await editor.until(lambda: editor.closed != [], timeout=10)
    assert asyncio.get_running_loop().time() - started < 10  # not the 120 s timeout
    assert editor.cancelled == ["git push origin main"]
    assert editor.closed[0]["message"].endswith("stopped waiting for the answer, nothing ran")
    with pytest.raises(asyncio.CancelledError):
        await call
