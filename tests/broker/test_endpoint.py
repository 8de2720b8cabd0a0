"""The broker endpoint and client over a real Unix socket: security, protocol, failure."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from shellgate.broker import client, discovery
from shellgate.broker.decide import decide
from shellgate.broker.protocol import PROTOCOL_VERSION, AgentDecision, AgentRequest

from .conftest import World, mode, raw, running, validate

NOBODY = 65534
# A question's carried decision, where what it says does not matter to the test.
DECIDED = AgentDecision("prompt", "needs_approval", "publishing needs a human", None, None, False)


def test_folder_is_0700_socket_0600_and_the_discovery_file_names_them(world: World) -> None:
    with running([str(world.project)]) as ep:
        assert ep.info is not None
        folder = os.path.dirname(ep.info.socket)
        assert folder == str(world.runtime / "shellgate")
        assert mode(folder) == 0o700 and mode(ep.info.socket) == 0o600
        assert mode(ep.info.path) == 0o600
        data = json.loads(Path(ep.info.path).read_text())
        validate("discoveryFile", data)
        assert data == {"pid": os.getpid(), "workspaceFolders": [str(world.project)],
                        "socket": ep.info.socket, "version": "test",
                        "protocol": PROTOCOL_VERSION}  # fmt: skip
        path, sock = ep.info.path, ep.info.socket
    assert not os.path.exists(path) and not os.path.exists(sock)  # removed on close


def test_a_folder_open_to_others_is_refused(world: World) -> None:
    folder = world.runtime / "shellgate"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    with pytest.raises(discovery.RuntimeDirError, match="open to others"):
        discovery.ensure_runtime_dir()
    assert client.find_server(str(world.project)) is None  # nor is it read


def _as_nobody(sock: str) -> str:
    """Connect and say hello from a forked child running as nobody; what happened."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: only system calls, then _exit
        outcome = b"error"
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            try:
                s.connect(sock)
            except PermissionError:
                outcome = b"EACCES"
            else:
                hello = {"jsonrpc": "2.0", "id": 1, "method": "shellgate/hello",
                         "params": {"protocol": 1}}  # fmt: skip
                try:
                    s.sendall(json.dumps(hello).encode() + b"\n")
                    outcome = b"closed" if s.recv(65536) == b"" else b"answered"
                except (ConnectionResetError, BrokenPipeError):
                    outcome = b"closed"
        finally:
            os.write(write_end, outcome)
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        out = fh.read().decode()
    os.waitpid(pid, 0)
    return out


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a child as another uid")
def test_another_uid_is_refused_by_the_modes_and_by_so_peercred(world: World) -> None:
    with running([str(world.project)]) as ep:
        assert ep.info is not None
        sock = ep.info.socket
        assert _as_nobody(sock) == "EACCES"  # the 0700 folder and 0600 socket
        # Loosen both: the peer-uid check still refuses, closing without a word.
        os.chmod(world.runtime, 0o711)
        os.chmod(os.path.dirname(sock), 0o711)
        os.chmod(sock, 0o666)
        assert _as_nobody(sock) == "closed"
        assert ep.refused == 1
        # ... while our own uid is served on the same socket.
        assert client.hello(ep.info) is not None


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a child as another uid")
def test_the_client_believes_no_server_of_another_uid(world: World, tmp_path: Path) -> None:
    """A socket someone else listens on (a planted discovery file, say) answering "accept":
    the client checks the peer's uid and takes its word for nothing."""
    folder = tempfile.mkdtemp(prefix="sgf-", dir="/tmp")
    os.chmod(folder, 0o777)
    path = os.path.join(folder, "fake.sock")
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the impostor, as nobody: answers every request with "accept"
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            srv.bind(path)
            os.chmod(path, 0o666)
            srv.listen(1)
            os.write(ready_w, b"1")
            conn, _ = srv.accept()
            line = conn.makefile("rb").readline()
            msg_id = json.loads(line)["id"]
            answer = {"answer": "accept", "message": None, "amendmentWritten": None}
            conn.sendall(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": answer}).encode()
                         + b"\n")  # fmt: skip
            conn.recv(1)
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"1"
        fake = discovery.ServerInfo(pid, (str(world.project),), path, "x", 1, path + ".json")
        assert client.ask(world.request("rm -rf /"), DECIDED, timeout=5, server=fake) is None
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        shutil.rmtree(folder, ignore_errors=True)


def test_every_message_follows_the_schema(world: World) -> None:
    seen: list[tuple[str, Any]] = []
    with running([str(world.project)]) as ep:
        ep.trace = lambda direction, msg: seen.append((direction, msg))
        assert ep.info is not None
        info = client.find_server(str(world.project / "sub"))
        assert info is not None and info.socket == ep.info.socket
        assert client.hello(info) is not None
        for command in ("git status", ("git", "push"), "rm -rf x", "timeout 5 rm -rf /"):
            assert client.decide(world.request(command)) is not None
        pushed = world.request("git push", justification="ship it")
        assert client.ask(pushed, world.decided(pushed), timeout=5)
        granular = {
            "granular": {
                "sandbox_approval": True,
                "rules": True,
                "mcp_elicitations": True,
                "request_permissions": True,
                "skill_approval": True,
            }
        }
        assert client.decide(world.request("ls", approval_policy=json.dumps(granular)))
        # Errors are messages too: an old protocol, bad params, an unknown method.
        for params in ({"protocol": 0}, {"protocol": PROTOCOL_VERSION, "cwd": "rel"}):
            line = json.dumps({"jsonrpc": "2.0", "id": "bad", "method": "shellgate/decide",
                               "params": params})  # fmt: skip
            assert "error" in raw(ep.info.socket, line.encode() + b"\n")
    assert {d for d, _ in seen} == {"in", "out"}
    methods = [m.get("method") for d, m in seen if d == "in"]
    assert {"shellgate/hello", "shellgate/decide", "shellgate/ask"} <= set(methods)
    for direction, msg in seen:
        if direction == "in" and msg["id"] == "bad":  # the deliberately bad ones: the schema agrees
            with pytest.raises(jsonschema.ValidationError):
                validate("request", msg)
        elif direction == "in":
            validate("request", msg)
        else:
            validate("response", msg)
            result = msg.get("result")
            if isinstance(result, dict) and "decision" in result:
                validate("decision", result)
            elif isinstance(result, dict) and "answer" in result:
                validate("answer", result)
            elif isinstance(result, dict):
                validate("helloResult", result)


def test_the_schema_refuses_what_the_endpoint_refuses(world: World) -> None:
    good = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "shellgate/ask",
        "params": {**world.request("ls").to_json(), "protocol": PROTOCOL_VERSION,
                   "decision": DECIDED.to_json(), "timeoutSeconds": 5},
    }  # fmt: skip
    validate("request", good)
    no_decision = {k: v for k, v in good["params"].items() if k != "decision"}
    for bad in ({**good["params"], "timeoutSeconds": 0}, {**good["params"], "cwd": "x"},
                {**good["params"], "command": []}, {**good["params"], "protocol": 1},
                no_decision, {**good["params"], "decision": {**DECIDED.to_json(), "matched": [
                    {"decision": "allow"}]}}):  # fmt: skip
        with pytest.raises(jsonschema.ValidationError):
            validate("request", {**good, "params": bad})
    with running([str(world.project)]) as ep:  # and the endpoint refuses them too
        assert ep.info is not None
        for params in ({**good["params"], "protocol": 1}, no_decision):
            reply = raw(ep.info.socket, json.dumps({**good, "params": params}).encode() + b"\n")
            assert reply["error"]["code"] in (-32001, -32602), reply


def test_protocol_errors_are_answered_and_the_connection_survives(world: World) -> None:
    with running([str(world.project)]) as ep:
        assert ep.info is not None
        sock = ep.info.socket
        assert raw(sock, b"{not json\n")["error"]["code"] == -32700
        assert raw(sock, b'{"jsonrpc": "2.0", "id": 1}\n')["error"]["code"] == -32600
        unknown = {"jsonrpc": "2.0", "id": 2, "method": "shellgate/nope",
                   "params": {"protocol": PROTOCOL_VERSION}}  # fmt: skip
        assert raw(sock, json.dumps(unknown).encode() + b"\n")["error"]["code"] == -32601
        old = {"jsonrpc": "2.0", "id": 3, "method": "shellgate/hello", "params": {"protocol": 0}}
        reply = raw(sock, json.dumps(old).encode() + b"\n")
        assert (
            reply["error"]["code"] == -32001 and "protocol version 0" in reply["error"]["message"]
        )
        bad = {"jsonrpc": "2.0", "id": 4, "method": "shellgate/decide",
               "params": {"protocol": PROTOCOL_VERSION, "agent": "x", "cwd": "/", "command": "ls",
                          "sandbox": "outer-space"}}  # fmt: skip
        reply = raw(sock, json.dumps(bad).encode() + b"\n")
        assert (
            reply["error"]["code"] == -32602
            and "`sandbox` must be one of" in reply["error"]["message"]
        )
        assert _too_long(sock) == "closed"
        assert client.hello(ep.info) is not None  # still serving


def _too_long(path: str) -> Any:
    """A line over the limit: the connection is closed unanswered."""
    import threading

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)

        def send() -> None:
            with contextlib.suppress(OSError):  # the server stops reading: that is the point
                sock.sendall(b'{"x": "' + b"a" * (2 << 20) + b'"}\n')

        sender = threading.Thread(target=send)
        sender.start()
        try:
            reply = sock.recv(65536)
        except ConnectionResetError:
            reply = b""
        sender.join(10)
    return "closed" if reply == b"" else reply


WIRE_CASES = ["git status", "git push origin main", "rm -rf build", "timeout 5 git push",
              ("git", "status", "--short")]  # fmt: skip


@pytest.mark.parametrize("command", WIRE_CASES)
def test_decide_over_the_wire_equals_decide_in_process(world: World, command: Any) -> None:
    request = world.request(command)
    with running([str(world.project)]):
        wire = client.decide(request)
    assert wire is not None
    assert wire == decide(request)


def test_the_client_never_raises_and_says_none(world: World, tmp_path: Path) -> None:
    request = world.request("git push")
    assert client.find_server(str(world.project)) is None
    assert client.ask(request, DECIDED, timeout=1) is None  # no server at all
    gone = discovery.ServerInfo(1, (str(world.project),), str(tmp_path / "nope.sock"), "x", 1,
                                str(tmp_path / "nope.json"))  # fmt: skip
    assert client.decide(request, server=gone) is None
    weird = AgentRequest("x", None, "relative/cwd", "ls")  # the server refuses it: None
    with running([str(world.project)]) as ep:
        assert client.decide(weird, server=ep.info) is None


_SERVER = textwrap.dedent("""
    import asyncio, sys
    from shellgate.broker.endpoint import Endpoint, decide_in_thread

    async def never(request, decision, timeout):
        await asyncio.Event().wait()

    async def main():
        ep = Endpoint([sys.argv[1]], on_decide=decide_in_thread, on_ask=never, version="t")
        await ep.start()
        print("ready", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
""")


def test_server_killed_mid_request_the_client_returns_none_promptly(world: World) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(world.project)],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        import threading

        result: list[Any] = []
        t = threading.Thread(
            target=lambda: result.append(client.ask(world.request("git push"), DECIDED, timeout=60))
        )
        t.start()
        time.sleep(0.5)  # the question is pending in the server
        assert t.is_alive()
        killed = time.monotonic()
        proc.kill()
        t.join(10)
        assert not t.is_alive() and result == [None]
        assert time.monotonic() - killed < 3
    finally:
        proc.kill()
        proc.wait()
    # Its discovery file is stale now: ignored and removed by the next client.
    stale = discovery.info_path(str(world.runtime / "shellgate"), proc.pid)
    assert os.path.exists(stale)
    assert client.find_server(str(world.project)) is None
    assert not os.path.exists(stale)
