"""What the client gets for a line that is no JSON-RPC 2.0 message. The SDK drops such a line
without a word, leaving a client that sent a request waiting; JSON-RPC 2.0 answers it with an
error whose id is null when none can be read: -32700 for text that is not JSON, -32600 for JSON
that is not a message (MCP has no batches, so an array is one too).

Stdlib only: the fast-start front (front.py) checks every line before the SDK has loaded.
"""

from __future__ import annotations

import json

_KINDS = {str: "a string", bool: "true or false", type(None): "null"}
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def error_for(line: str) -> str | None:
    """The error line to send for `line`, or None when it is a message (or blank: nothing)."""
    if not line.strip():
        return None
    try:
        msg = json.loads(line)
    except ValueError as exc:
        return _error(None, PARSE_ERROR, "Parse error", f"not JSON: {exc}")
    if not isinstance(msg, dict):
        kind = "an array (MCP has no batches)" if isinstance(msg, list) else _KINDS.get(
            type(msg), "a number")
        return _error(None, INVALID_REQUEST, "Invalid Request",
                      f"a message is an object, not {kind}")  # fmt: skip
    raw_id = msg.get("id")
    msg_id = raw_id if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else None
    if msg.get("jsonrpc") != "2.0":
        return _error(msg_id, INVALID_REQUEST, "Invalid Request", '"jsonrpc" must be "2.0"')
    if isinstance(msg.get("method"), str):
        return None  # a request or a notification: the SDK answers what it does not know
    if "id" in msg and ("result" in msg or "error" in msg):
        return None  # a response to the server's own request
    return _error(msg_id, INVALID_REQUEST, "Invalid Request",
                  'neither a request ("method") nor a response ("result" or "error")')  # fmt: skip


def _error(msg_id: str | int | None, code: int, message: str, data: str) -> str:
    body = {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message,
                                                      "data": data}}  # fmt: skip
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n"
