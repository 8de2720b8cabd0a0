"""The fast start of `shellgate mcp` (front.py), real processes over real pipes: answers sent early
from the answer cache are byte for byte the SDK's own (the plain SDK server, no front end), for
the openings the real clients send on each protocol revision; a corrupt cache or a planted wrong
answer is reported and corrected; the wire is claimed (fd 0 reads /dev/null, fd 1 is stderr)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import SHELLGATE, server_env

pytestmark = pytest.mark.timeout(120)

_M = "io.modelcontextprotocol/"
_ENVELOPE = {"_meta": {
    _M + "protocolVersion": "2026-07-28",
    _M + "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": "2.1.332"},
    _M + "clientCapabilities": {"roots": {"listChanged": True},
                                "elicitation": {"form": {}, "url": {}}}}}  # fmt: skip


def _rq(id_: Any, method: str, params: Any = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _legacy(version: str, client: dict[str, Any], list_params: Any) -> list[list[dict[str, Any]]]:
    init = _rq(0, "initialize", {"protocolVersion": version, "capabilities": {
        "elicitation": {"form": {}, "url": {}}}, "clientInfo": client})  # fmt: skip
    return [[init], [_INITIALIZED, _rq(1, "tools/list", list_params)]]


# Each opening as batches: a batch is sent whole, then its requests' answers are awaited (for
# `subscriptions/listen`, its acknowledgement).
OPENINGS = {
    # Codex 0.169.0 / 0.171.0 (protocol 2025-06-18), as captured from the real client.
    "codex": _legacy("2025-06-18", {"name": "codex-mcp-client", "title": "Codex",
                                    "version": "0.171.0"}, {"_meta": {"progressToken": 0}}),
    # The SDK's latest handshake revision.
    "2025-11-25": _legacy("2025-11-25", {"name": "bench", "version": "0"}, None),
    # Claude Code (2026-07-28): a discover probe and an `initialize` at once (the SDK serves the
    # modern era and refuses the `initialize`), then discover and listen (Claude Code waits for
    # its acknowledgement), then the lists.
    "claude-code": [
        [_rq("server-discover-probe-1", "server/discover", _ENVELOPE),
         _rq(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "claude-code", "version": "2.1.332"}})],
        [_rq(1, "server/discover", _ENVELOPE),
         _rq("listen:0", "subscriptions/listen", {**_ENVELOPE, "notifications": {
             "toolsListChanged": True}})],
        [_rq(3, "prompts/list", _ENVELOPE), _rq(4, "resources/list", _ENVELOPE),
         _rq(5, "tools/list", _ENVELOPE)],
    ],
}

PLAIN_SDK = """
import sys
from shellgate.approval.context import ApprovalPolicy, SandboxMode
from shellgate.mcp.server import build_server
from shellgate.mcp.shell import McpSession
ws, home = sys.argv[1:]
build_server(McpSession(ws, home, ApprovalPolicy.parse("on-request"), SandboxMode.WORKSPACE_WRITE,
                        (), 300.0)).run("stdio")
"""


class Conversation:
    """A server process fed an opening batch by batch; `answers` maps each request's id to the
    exact line that answered it."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env={**os.environ, **env})  # fmt: skip
        self.answers: dict[str, str] = {}
        self._lines: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def send(self, batch: list[dict[str, Any]]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in batch))
        self.proc.stdin.flush()
        wanted = {("ack:" if m["method"] == "subscriptions/listen" else "") + json.dumps(m["id"])
                  for m in batch if "id" in m}  # fmt: skip
        while not wanted <= self.answers.keys():  # the order of answers may differ
            line = self._lines.get(timeout=60).decode()
            assert line, "the server ended early"
            msg = json.loads(line)
            if msg.get("method") == "notifications/subscriptions/acknowledged":
                key = "ack:" + json.dumps(msg["params"]["_meta"][_M + "subscriptionId"])
            else:
                key = json.dumps(msg.get("id"))
            if key in wanted and ("result" in msg or "error" in msg or key.startswith("ack:")):
                self.answers[key] = line

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        self.proc.wait(30)
        return self.proc.stderr.read().decode()


def converse(opening: str, *conversations: Conversation) -> list[tuple[dict[str, str], str]]:
    """Feeds the opening to each (started together, they load side by side)."""
    for c in conversations:
        for batch in OPENINGS[opening]:
            c.send(batch)
    return [(c.answers, c.close()) for c in conversations]


def _shellgate(ws: Path, home: Path) -> list[str]:
    return [*SHELLGATE, "mcp", "--workspace", str(ws), "--codex-home", str(home)]


def _env(tmp: Path) -> dict[str, str]:
    return {**server_env(tmp), "SHELLGATE_MCP_DEBUG": "1"}


def _cache(tmp: Path) -> Path:
    return tmp / "cache" / "shellgate" / "mcp-answers.json"


def _early(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    return [line.split()[3] for line in lines if line.endswith("early, from the cache")]


@pytest.mark.parametrize("opening", OPENINGS)
def test_early_answers_are_the_sdks_own(opening: str, tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    (home / "rules").mkdir(parents=True)
    (plain, _), (cold, stderr) = converse(
        opening, Conversation([sys.executable, "-c", PLAIN_SDK, str(ws), str(home)],
                              _env(tmp_path)), Conversation(_shellgate(ws, home), _env(tmp_path)))
    assert cold == plain
    assert _early(stderr) == [] and "differed" not in stderr, stderr
    assert _cache(tmp_path).exists()

    warm_c = Conversation(_shellgate(ws, home), _env(tmp_path))
    for batch in OPENINGS[opening]:
        warm_c.send(batch)
    # The wire is claimed: the server's fd 0 reads /dev/null, its fd 1 is its stderr.
    fds = Path(f"/proc/{warm_c.proc.pid}/fd")
    assert os.readlink(fds / "0") == os.devnull
    assert os.readlink(fds / "1") == os.readlink(fds / "2")
    warm, stderr = warm_c.answers, warm_c.close()
    assert warm == plain
    early = _early(stderr)
    methods = [m["method"] for batch in OPENINGS[opening] for m in batch if "id" in m]
    assert early == methods, stderr  # every one answered before the SDK had loaded
    assert "differed" not in stderr and "ignoring" not in stderr, stderr


def test_a_corrupt_cache_or_a_wrong_answer_is_corrected(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    (home / "rules").mkdir(parents=True)
    cache = _cache(tmp_path)
    cache.parent.mkdir(parents=True)
    cache.write_text('{"key": "x", "answers": {"a": ')
    right, stderr = converse("2025-11-25", Conversation(_shellgate(ws, home), _env(tmp_path)))[0]
    assert f"ignoring the answer cache {cache}" in stderr, stderr
    assert _early(stderr) == []
    assert "shellgate" in json.loads(right['0'])["result"]["serverInfo"]["name"]
    assert [t["name"] for t in json.loads(right["1"])["result"]["tools"]] == ["shell", "approve"]

    # Plant a wrong `initialize` answer and a `tools/list` answer with another request's id.
    data = json.loads(cache.read_text())
    assert sorted(data["answers"].values()) == sorted(right.values())  # rewritten whole
    for digest, line in data["answers"].items():
        if line == right["0"]:
            data["answers"][digest] = line.replace('"name":"shellgate"', '"name":"planted"')
        else:
            data["answers"][digest] = line.replace('"id":1,', '"id":7,')
    cache.write_text(json.dumps(data))
    planted, stderr = converse("2025-11-25", Conversation(_shellgate(ws, home), _env(tmp_path)))[0]
    assert '"name":"planted"' in planted["0"]  # sent early: it cannot be unsent
    assert "differed from the SDK's; the cache is corrected" in stderr, stderr
    assert "holds a wrong answer; not used" in stderr, stderr
    assert planted["1"] == right["1"]  # the SDK's own
    assert _early(stderr) == ["initialize"]

    again, stderr = converse("2025-11-25", Conversation(_shellgate(ws, home), _env(tmp_path)))[0]
    assert again == right
    assert _early(stderr) == ["initialize", "tools/list"], stderr
    assert "differed" not in stderr and "wrong" not in stderr
