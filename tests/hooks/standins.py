"""Stand-in model servers for Claude Code (Anthropic Messages, SSE) and Gemini CLI
(streamGenerateContent, SSE) on 127.0.0.1: stdlib only, scripted, every request kept.

A script is a list of steps; each model request of the agent's main loop takes the next one:
  {"bash": "CMD"}   a call of the agent's shell tool (Claude `Bash`, Gemini `run_shell_command`)
  {"text": "..."}   a final answer
Past the end of the script the answer is the text "done". Gemini's helper requests (a JSON
response schema: the model router) get a value filled in from the schema and take no step.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = dict[str, Any]


class StandIn:
    def __init__(self, kind: str, script: Sequence[Step]) -> None:
        assert kind in ("anthropic", "gemini")
        self.kind = kind
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []  # main-loop request bodies, in order
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"standin": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def take(self, body: dict[str, Any]) -> Step:
        with self._lock:
            self.requests.append(body)
            return self.script.pop(0) if self.script else {"text": "done"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    standin: StandIn

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        path = self.path.split("?")[0]
        if self.standin.kind == "anthropic" and path.endswith("/v1/messages"):
            self._anthropic(body)
        elif self.standin.kind == "gemini" and ":" in path.rsplit("/", 1)[-1]:
            self._gemini(body, path.endswith(":streamGenerateContent"))
        else:
            self._send(404, {"error": {"message": f"no {path} here"}})

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _anthropic(self, body: dict[str, Any]) -> None:
        step = self.standin.take(body) if body.get("tools") else {"text": "OK"}
        if "bash" in step:
            block = {
                "type": "tool_use",
                "id": "toolu_" + uuid.uuid4().hex[:20],
                "name": "Bash",
                "input": {"command": step["bash"]},
            }
            stop = "tool_use"
        else:
            block, stop = {"type": "text", "text": step["text"]}, "end_turn"
        usage = {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
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
        self._sse_start()

        def sse(event: str, data: dict[str, Any]) -> None:
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())

        sse("message_start", {"type": "message_start", "message": message})
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": start},
        )
        sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        sse("message_stop", {"type": "message_stop"})
        self.wfile.flush()

    def _gemini(self, body: dict[str, Any], stream: bool) -> None:
        gen = body.get("generationConfig") or {}
        schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
        if schema:
            parts: list[dict[str, Any]] = [{"text": json.dumps(_fill(schema))}]
        else:
            step = self.standin.take(body)
            if "bash" in step:
                parts = [
                    {
                        "functionCall": {
                            "name": "run_shell_command",
                            "args": {"command": step["bash"]},
                        }
                    }
                ]
            else:
                parts = [{"text": step["text"]}]
        reply = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
        }
        if not stream:
            self._send(200, reply)
            return
        self._sse_start()
        self.wfile.write(f"data: {json.dumps(reply)}\r\n\r\n".encode())
        self.wfile.flush()


def _fill(schema: dict[str, Any]) -> Any:
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {k: _fill(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    return False if kind == "boolean" else "stand-in"


def tool_results(kind: str, body: dict[str, Any]) -> list[str]:
    """What the model was told about its tool calls in one request (the newest last)."""
    out: list[str] = []
    if kind == "anthropic":
        for msg in body.get("messages") or []:
            for block in msg.get("content") or [] if isinstance(msg.get("content"), list) else []:
                if block.get("type") == "tool_result":
                    content = block.get("content")
                    if isinstance(content, list):
                        content = "".join(c.get("text", "") for c in content)
                    out.append(str(content))
    else:
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                if "functionResponse" in part:
                    out.append(json.dumps(part["functionResponse"].get("response")))
    return out
