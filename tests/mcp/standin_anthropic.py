"""A scripted stand-in for the Anthropic Messages API on 127.0.0.1 (stdlib only), for Claude Code
as an MCP client in tests: from the team's Claude Code trial (`recipes/bridges/claude-code`).

  POST /v1/messages[?beta=true]      SSE when "stream": true, else JSON
  POST /v1/messages/count_tokens     {"input_tokens": N}
  GET  /v1/models                    a one-model list
A POST /v1/messages that advertises tools is a main-loop request and takes the next step of the
script (a JSON list); side requests (titles, summaries) get a short text. Steps:
  {"text": "..."}                                        text, stop_reason end_turn
  {"tool_use": [{"name": "Bash", "input": {...}}, ...]}  tool_use blocks, stop_reason tool_use
Every request is appended to a JSONL log.

Usage: python standin_anthropic.py SCRIPT.json --log LOG.jsonl --port-file FILE
"""
from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT: list[dict] = []
LOG_PATH = ""
_lock = threading.Lock()
_cursor = 0


def next_step() -> dict:
    global _cursor
    with _lock:
        if _cursor < len(SCRIPT):
            step = SCRIPT[_cursor]
            _cursor += 1
            return step
    return {"text": "(script exhausted)"}


NOT_FOUND = b'{"type":"error","error":{"type":"not_found_error","message":"not found"}}'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _record(self, body, note=""):
        with _lock, open(LOG_PATH, "a") as f:
            f.write(json.dumps({"t": time.time(), "method": self.command, "path": self.path,
                                "note": note, "headers": dict(self.headers), "body": body}) + "\n")

    def _send(self, status: int, payload: bytes, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", "req_" + uuid.uuid4().hex[:12])
        self.end_headers()
        self.wfile.write(payload)

    def _read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {"_raw": raw.decode("latin-1")}

    def do_HEAD(self):
        self._record(None)
        self._send(200, b"")

    def do_GET(self):
        self._record(None)
        if self.path.split("?")[0].rstrip("/").endswith("/v1/models"):
            self._send(200, json.dumps({"data": [
                {"type": "model", "id": "claude-sonnet-4-5", "display_name": "stand-in",
                 "created_at": "2025-01-01T00:00:00Z"}], "has_more": False,
                "first_id": "claude-sonnet-4-5", "last_id": "claude-sonnet-4-5"}).encode())
        else:
            self._send(404, NOT_FOUND)

    def do_POST(self):
        body = self._read_body()
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            self._record(body)
            self._send(200, json.dumps({"input_tokens": 42}).encode())
            return
        if not path.endswith("/v1/messages"):
            self._record(body)
            self._send(404, NOT_FOUND)
            return
        main_loop = bool(body.get("tools"))
        if main_loop:
            step = next_step()
            self._record(body, note=f"main step={json.dumps(step)[:200]}")
        else:
            step = {"text": "OK"}
            self._record(body, note="side")
        if "status" in step:
            self._send(step["status"], json.dumps({"type": "error", "error": {
                "type": "api_error", "message": step.get("body", "")}}).encode())
            return
        blocks = []
        if step.get("text") is not None:
            blocks.append({"type": "text", "text": step["text"]})
        for tu in step.get("tool_use", []):
            blocks.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20],
                           "name": tu["name"], "input": tu["input"]})
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        msg = {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
               "model": body.get("model", "claude-sonnet-4-5"), "content": blocks,
               "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if not body.get("stream"):
            self._send(200, json.dumps(msg).encode())
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", "req_" + uuid.uuid4().hex[:12])
        self.end_headers()
        self.close_connection = True

        def sse(event: str, data: dict):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        sse("message_start", {"type": "message_start", "message": {
            **msg, "content": [], "stop_reason": None,
            "usage": {**msg["usage"], "output_tokens": 1}}})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                sse("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": {"type": "text", "text": ""}})
                t = b["text"]
                for j in range(0, len(t), 16):
                    delta = {"type": "text_delta", "text": t[j:j + 16]}
                    sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                "delta": delta})
            else:
                sse("content_block_start", {"type": "content_block_start", "index": i,
                                            "content_block": {**b, "input": {}}})
                js = json.dumps(b["input"])
                h = len(js) // 2
                for part in (js[:h], js[h:]):
                    delta = {"type": "input_json_delta", "partial_json": part}
                    sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                "delta": delta})
            sse("content_block_stop", {"type": "content_block_stop", "index": i})
        sse("message_delta", {"type": "message_delta",
                              "delta": {"stop_reason": stop, "stop_sequence": None},
                              "usage": {"output_tokens": 5}})
        sse("message_stop", {"type": "message_stop"})


def main() -> None:
    global SCRIPT, LOG_PATH
    args = sys.argv[1:]
    with open(args[0]) as fh:
        SCRIPT = json.load(fh)
    LOG_PATH = args[args.index("--log") + 1]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args[args.index("--port-file") + 1], "w") as f:
        f.write(str(srv.server_address[1]))
    srv.serve_forever()


if __name__ == "__main__":
    main()
