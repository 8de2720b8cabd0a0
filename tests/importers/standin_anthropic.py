"""A scripted stand-in for the Anthropic Messages API, on 127.0.0.1 (stdlib only).

Each request that advertises tools takes the next step of the script: `{"tool_use": [input,
...]}` answers with one `Bash` tool_use block per input, `{"text": ...}` ends the turn. Every
request body is appended to a JSONL log, so a test reads the tool results Claude Code sent back.

Usage: python standin_anthropic.py SCRIPT.json LOG.jsonl PORTFILE
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_lock = threading.Lock()
_state: dict[str, object] = {"script": [], "log": "", "cursor": 0}


def _next_step() -> dict:
    with _lock:
        script = _state["script"]
        assert isinstance(script, list)
        cursor = int(_state["cursor"])  # type: ignore[call-overload]
        _state["cursor"] = cursor + 1
        return script[cursor] if cursor < len(script) else {"text": "done"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_HEAD(self) -> None:
        self._send(200, b"")

    def do_GET(self) -> None:
        self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"no"}}')

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        if not self.path.split("?")[0].endswith("/v1/messages"):
            self._send(200, json.dumps({"input_tokens": 1}).encode())
            return
        step = _next_step() if body.get("tools") else {"text": "OK"}
        with _lock, open(str(_state["log"]), "a") as fh:
            fh.write(json.dumps(body) + "\n")
        blocks: list[dict] = []
        if "text" in step:
            blocks.append({"type": "text", "text": step["text"]})
        for tool_input in step.get("tool_use", []):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": "toolu_" + uuid.uuid4().hex[:20],
                    "name": "Bash",
                    "input": tool_input,
                }
            )
        stop = "tool_use" if step.get("tool_use") else "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5}
        message = {
            "id": "msg_" + uuid.uuid4().hex[:20],
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "stand-in"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def sse(event: str, data: dict) -> None:
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())

        sse("message_start", {"type": "message_start", "message": message})
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            )
            sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
            sse("content_block_stop", {"type": "content_block_stop", "index": i})
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": usage,
            },
        )
        sse("message_stop", {"type": "message_stop"})
        self.wfile.flush()


def main() -> None:
    with open(sys.argv[1]) as fh:
        _state["script"] = json.load(fh)
    _state["log"] = sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[3], "w") as fh:
        fh.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
