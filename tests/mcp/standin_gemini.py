"""A scripted stand-in for the Gemini API (v1beta) on 127.0.0.1 (stdlib only), for Gemini CLI as
an MCP client in tests: after the team's Gemini CLI trial (`recipes/bridges/gemini-cli`).

`:streamGenerateContent` / `:generateContent` take the next step of the script (a JSON list):
  {"functionCall": {"name": ..., "args": {...}}}   a tool call
  {"text": "..."}                                  the model's text
Helper calls that ask for JSON (the CLI's router, next-speaker check) get a value filling their
schema and take no step; `:countTokens` answers 42. Every request is appended to a JSONL log.

Usage: python standin_gemini.py SCRIPT.json --log LOG.jsonl --port-file FILE
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SCRIPT: list[dict[str, Any]] = []
LOG = ""
_lock = threading.Lock()


def _fill(schema: dict[str, Any]) -> Any:
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {k: _fill(v) for k, v in (schema.get("properties") or {}).items()}
    return {"array": [], "integer": 1, "number": 1, "boolean": False}.get(kind, "stand-in")


def _answer(body: dict[str, Any], model: str) -> tuple[dict[str, Any], str]:
    gen = body.get("generationConfig") or {}
    schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
    if gen.get("responseMimeType") == "application/json" or schema:
        parts: list[dict[str, Any]] = [{"text": json.dumps(_fill(schema or {}))}]
        kind = "helper"
    else:
        with _lock:
            step = SCRIPT.pop(0) if SCRIPT else {"text": "(script exhausted)"}
        parts = [step] if "functionCall" in step else [{"text": step.get("text", "")}]
        kind = "main"
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage, "modelVersion": model}, kind  # fmt: skip


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, code: int, data: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _log(self, entry: dict[str, Any]) -> None:
        with _lock, open(LOG, "a") as fh:
            fh.write(json.dumps({"t": time.time(), **entry}) + "\n")

    def do_GET(self) -> None:
        self._log({"method": "GET", "path": self.path})
        self._send(404, b'{"error": {"code": 404, "message": "not found"}}')

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            body = {}
        base = self.path.split("?")[0]
        model = base.rsplit("/", 1)[-1].split(":")[0]
        if base.endswith(":countTokens"):
            self._log({"method": "POST", "path": self.path, "kind": "count"})
            self._send(200, b'{"totalTokens": 42}')
            return
        if not base.endswith(("GenerateContent", ":generateContent")):
            self._log({"method": "POST", "path": self.path, "kind": "404"})
            self._send(404, b'{"error": {"code": 404, "message": "not found"}}')
            return
        answer, kind = _answer(body, model)
        self._log({"method": "POST", "path": self.path, "kind": kind, "body": body})
        if base.endswith(":streamGenerateContent"):
            self._send(200, f"data: {json.dumps(answer)}\r\n\r\n".encode(), "text/event-stream")
        else:
            self._send(200, json.dumps(answer).encode())


def main() -> None:
    global SCRIPT, LOG
    args = sys.argv[1:]
    with open(args[0]) as fh:
        SCRIPT = json.load(fh)
    LOG = args[args.index("--log") + 1]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args[args.index("--port-file") + 1], "w") as fh:
        fh.write(str(srv.server_address[1]))
    srv.serve_forever()


if __name__ == "__main__":
    main()
