"""The broker client for hooks and the MCP server: standard library only, synchronous, and it
never raises to its caller: anything that goes wrong (no server, a dead one, a timeout, a bad
answer) is None, and the caller applies its documented fallback.

    info = find_server(cwd)            # the editor whose workspace holds cwd, or None
    answer = ask(request, decision, timeout=60)  # the person's answer, or None
    answer = ask(request, decision, timeout=60, cancel=event)  # a threading.Event: set, it gives up
    decision = decide(request, timeout=2)

Before trusting a server the client checks, as the server does, that the peer's uid is ours.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import struct
import time
from collections.abc import Callable

from shellgate.broker.discovery import ServerInfo, find_server
from shellgate.broker.protocol import (
    ASK,
    DECIDE,
    HELLO,
    PROTOCOL_VERSION,
    REVIEWED,
    AgentAnswer,
    AgentDecision,
    AgentRequest,
    ProtocolError,
    answer_from_json,
    decision_from_json,
)
from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    import threading  # only the type: a hook's start-up counts
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = ["ServerInfo", "ask", "decide", "find_server", "hello", "reviewed"]

# Beyond the person's time, how long the server may take to say "timeout" itself.
ANSWER_GRACE = 5.0
# How often a call waiting with `cancel` looks at it.
CANCEL_POLL = 0.1
_ids = itertools.count(1)


def ask(
    request: AgentRequest, decision: AgentDecision, *, timeout: float,
    server: ServerInfo | None = None, cancel: threading.Event | None = None,
) -> AgentAnswer | None:  # fmt: skip
    """Ask the person in the editor about `request`, which `decision` says needs approval;
    `timeout` seconds unanswered is "timeout" (a no). Once `cancel` is set (its caller gave
    up: an MCP call cancelled) the connection is closed, which withdraws the question from the
    editor, and the answer is None."""
    params = {**request.to_json(), "decision": decision.to_json(), "timeoutSeconds": timeout}
    result = call(ASK, params, timeout=timeout + ANSWER_GRACE, server=server, cwd=request.cwd,
                  cancel=cancel)  # fmt: skip
    return _parse(answer_from_json, result)


def reviewed(
    request: AgentRequest, decision: AgentDecision, review: dict[str, str | None], *,
    timeout: float = 2.0, server: ServerInfo | None = None,
) -> bool:  # fmt: skip
    """Tell the editor whose workspace holds request.cwd that Codex's auto-reviewer answered
    this question (its history shows it); False when no editor took it."""
    params = {**request.to_json(), "decision": decision.to_json(), "review": review}
    return call(REVIEWED, params, timeout=timeout, server=server, cwd=request.cwd) is not None


def decide(
    request: AgentRequest, *, timeout: float = 5.0, server: ServerInfo | None = None
) -> AgentDecision | None:
    """The chain's decision as the editor's server computes it (no person involved)."""
    result = call(DECIDE, request.to_json(), timeout=timeout, server=server, cwd=request.cwd)
    return _parse(decision_from_json, result)


def hello(server: ServerInfo, *, timeout: float = 2.0) -> dict[str, Any] | None:
    result = call(HELLO, {"client": "shellgate"}, timeout=timeout, server=server)
    return result if isinstance(result, dict) else None


def _parse(reader: Callable[[object], T], result: object) -> T | None:
    if result is None:
        return None
    try:
        return reader(result)
    except ProtocolError:
        return None


def call(
    method: str,
    params: dict[str, Any],
    *,
    timeout: float,
    server: ServerInfo | None = None,
    cwd: str | None = None,
    cancel: threading.Event | None = None,
) -> Any:
    """One JSON-RPC request on a fresh connection: its result, or None (never raises)."""
    try:
        if server is None:
            server = find_server(cwd or os.getcwd())
            if server is None:
                return None
        return _call(server.socket, method, params, time.monotonic() + timeout, cancel)
    except Exception:
        return None


def _call(
    path: str, method: str, params: dict[str, Any], deadline: float,
    cancel: threading.Event | None = None,
) -> Any:  # fmt: skip
    msg_id = next(_ids)
    body = {"jsonrpc": "2.0", "id": msg_id, "method": method,
            "params": {**params, "protocol": PROTOCOL_VERSION}}  # fmt: skip
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        sock.connect(path)
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        if struct.unpack("3i", creds)[1] != os.getuid():
            return None  # someone else's socket: never take its word
        sock.sendall(json.dumps(body).encode() + b"\n")
        buf = b""
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or (cancel is not None and cancel.is_set()):
                return None  # closing the connection tells the server the asker is gone
            sock.settimeout(left if cancel is None else min(left, CANCEL_POLL))
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue  # a poll for `cancel`, or the deadline: the loop decides
            if not chunk:
                return None  # the server went away mid-request
            buf += chunk
    reply = json.loads(buf.split(b"\n", 1)[0])
    if not isinstance(reply, dict) or reply.get("id") != msg_id or "result" not in reply:
        return None
    return reply["result"]
