"""The real `shellgate mcp` process over stdio, sent lines that are not JSON-RPC messages: each
gets JSON-RPC 2.0's error (-32700 for what is not JSON, -32600 for JSON that is no message, id
null unless one can be read), and the server goes on answering. Both before the SDK has loaded
(the fast-start front reads the wire) and after."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from mcp_helpers import SHELLGATE, server_env

from shellgate.mcp.malformed import error_for

pytestmark = pytest.mark.timeout(120)

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
BAD = [
    (b"this is not json\n", None, -32700),
    (b'{"jsonrpc": "2.0", "id": 4, "method": "ping"\n', None, -32700),  # cut short
    (b"\xff\xfe{}\n", None, -32700),  # not UTF-8
    (b"[1, 2]\n", None, -32600),
    (b'"hello"\n', None, -32600),
    (b'{"id": 8, "method": "ping"}\n', 8, -32600),  # no "jsonrpc": "2.0"
    (b'{"jsonrpc": "2.0", "id": "x"}\n', "x", -32600),  # neither request nor response
]


def _lines(tmp_path: Path, workspace: Path, chunks: list[bytes]) -> list[dict[str, object]]:
    """Every line the server wrote until it answered request 2 (the last one sent)."""
    proc = subprocess.Popen([*SHELLGATE, "mcp", "--workspace", str(workspace), "--codex-home",
                             str(tmp_path / "home")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **server_env(tmp_path)})  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(b"".join(chunks))
    proc.stdin.flush()
    got: list[dict[str, object]] = []
    try:
        while not any(m.get("id") == 2 and "result" in m for m in got):
            line = proc.stdout.readline()
            assert line, "the server ended early"
            got.append(json.loads(line))
    finally:
        proc.stdin.close()
        proc.wait(30)
    assert "Traceback" not in proc.stderr.read().decode(errors="replace")
    return got


@pytest.mark.parametrize("when", ["first", "after-initialize"])
def test_each_malformed_line_gets_its_error_and_the_server_goes_on(
    tmp_path: Path, workspace: Path, when: str
) -> None:
    init = json.dumps(INIT).encode() + b"\n"
    ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode() + b"\n"
    bad = [line for line, _, _ in BAD]
    chunks = [*bad, init, ping] if when == "first" else [init, *bad, ping]
    got = _lines(tmp_path, workspace, chunks)
    errors = [m for m in got if "error" in m]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [  # type: ignore[index]
        (msg_id, code) for _, msg_id, code in BAD]
    assert errors[0]["error"] == {"code": -32700, "message": "Parse error",  # type: ignore[index]
                                  "data": "not JSON: Expecting value: line 1 column 1 (char 0)"}
    answered = {m["id"] for m in got if "result" in m}
    assert answered == {1, 2}


def test_messages_and_blank_lines_are_left_to_the_sdk() -> None:
    for line in ('{"jsonrpc": "2.0", "method": "notifications/initialized"}',
                 '{"jsonrpc": "2.0", "id": 3, "result": {}}',
                 '{"jsonrpc": "2.0", "id": 3, "error": {"code": 1, "message": "no"}}',
                 '{"jsonrpc": "2.0", "id": 9, "method": "nope"}', "", "  \n"):  # fmt: skip
        assert error_for(line) is None, line
