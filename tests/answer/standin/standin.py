# ruff: noqa  (copied verbatim from ../shared/recipes: the stand-in the spec was recorded against)
"""Scripted stand-in model server (trial; stdlib only).

Speaks, on 127.0.0.1 only:
  POST /v1/responses          (OpenAI Responses API, SSE when "stream": true, else JSON)
  POST /v1/chat/completions   (Chat Completions, SSE chunks when "stream": true, else JSON)
  GET  /v1/models             (a one-model list)
Each POST consumes the next step of a script (JSON list); every request is appended to a
JSONL log.  A step is {"text": "..."} or {"tool_calls": [{"name": ..., "arguments": {...}}]}
or {"status": 500, "body": "..."} (error injection) or {"tool": "<auto>", "command": "..."}
which picks the shell-like tool the client advertised (shell / shell_command /
exec_command / run_shell) and fills in the argument shape it expects.

Usage: python standin.py SCRIPT.json LOG.jsonl [PORTFILE]
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


def tool_names(body: dict) -> list[str]:
    names = []
    for t in body.get("tools") or []:
        n = t.get("name") or (t.get("function") or {}).get("name")
        if n:
            names.append(n)
    return names


def resolve_auto(step: dict, body: dict) -> dict:
    """Turn {"tool": "<auto>", "command": "..."} into a concrete call for this client."""
    if step.get("tool") != "<auto>":
        return step
    cmd = step["command"]
    names = tool_names(body)
    for name, args in (
        ("shell_command", {"command": cmd}),
        ("exec_command", {"cmd": cmd}),
        ("shell", {"command": ["bash", "-lc", cmd]}),
        ("run_shell", {"command": cmd}),
    ):
        if name in names:
            extra = step.get("extra", {})
            return {"tool_calls": [{"name": name, "arguments": {**args, **extra}}]}
    return {"text": f"(no shell tool among {names})"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):  # quiet
        pass

    def _record(self, body):
        with _lock, open(LOG_PATH, "a") as f:
            f.write(json.dumps({"t": time.time(), "method": self.command, "path": self.path,
                                "headers": dict(self.headers), "body": body}) + "\n")

    def _send(self, status: int, payload: bytes, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, json.dumps({"object": "list", "data": [
                {"id": "stand-in", "object": "model", "owned_by": "shellgate"}]}).encode())
        else:
            self._send(404, b'{"error":{"message":"not found"}}')

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("latin-1")}
        self._record(body)
        step = resolve_auto(next_step(), body)
        if step.get("delay_ms"):  # a slow model, for cancellation tests
            time.sleep(step["delay_ms"] / 1000)
        if "status" in step:
            self._send(step["status"], json.dumps({"error": {"message": step.get("body", "")}}).encode())
            return
        if self.path.endswith("/responses"):
            self.responses_api(body, step)
        elif self.path.endswith("/chat/completions"):
            self.chat(body, step)
        else:
            self._send(404, b'{"error":{"message":"not found"}}')

    # ---- SSE helpers -------------------------------------------------------------------
    def _sse_start(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, data: dict, event: str | None = None):
        chunk = (f"event: {event}\n" if event else "") + f"data: {json.dumps(data)}\n\n"
        self.wfile.write(chunk.encode())
        self.wfile.flush()

    # ---- Responses API -----------------------------------------------------------------
    def responses_api(self, body: dict, step: dict):
        rid = "resp_" + uuid.uuid4().hex[:12]
        items = []
        if step.get("text") is not None:
            items.append({"type": "message", "role": "assistant", "id": "msg_" + uuid.uuid4().hex[:8],
                          "status": "completed",
                          "content": [{"type": "output_text", "text": step["text"], "annotations": []}]})
        for tc in step.get("tool_calls", []):
            item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:8],
                    "call_id": "call_" + uuid.uuid4().hex[:8], "name": tc["name"],
                    "arguments": json.dumps(tc["arguments"]), "status": "completed"}
            if tc.get("namespace"):  # Responses "namespace" tools (Codex puts MCP tools there)
                item["namespace"] = tc["namespace"]
            items.append(item)
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}
        resp = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "completed",
                "model": body.get("model", "stand-in"), "output": items, "usage": usage}
        if not body.get("stream"):
            self._send(200, json.dumps(resp).encode())
            return
        self._sse_start()
        self._sse({"type": "response.created", "response": {**resp, "status": "in_progress", "output": []}},
                  "response.created")
        for i, it in enumerate(items):
            self._sse({"type": "response.output_item.added", "output_index": i, "item": it},
                      "response.output_item.added")
            if it["type"] == "message":
                text = it["content"][0]["text"]
                for j in range(0, len(text), 8):
                    self._sse({"type": "response.output_text.delta", "item_id": it["id"], "output_index": i,
                               "content_index": 0, "delta": text[j:j + 8]}, "response.output_text.delta")
            self._sse({"type": "response.output_item.done", "output_index": i, "item": it},
                      "response.output_item.done")
        self._sse({"type": "response.completed", "response": resp}, "response.completed")

    # ---- Chat Completions --------------------------------------------------------------
    def chat(self, body: dict, step: dict):
        cid = "chatcmpl-" + uuid.uuid4().hex[:12]
        calls = [{"id": "call_" + uuid.uuid4().hex[:8], "type": "function",
                  "function": {"name": tc["name"], "arguments": json.dumps(tc["arguments"])}}
                 for tc in step.get("tool_calls", [])]
        finish = "tool_calls" if calls else "stop"
        base = {"id": cid, "created": int(time.time()), "model": body.get("model", "stand-in")}
        if not body.get("stream"):
            msg = {"role": "assistant", "content": step.get("text")}
            if calls:
                msg["tool_calls"] = calls
            self._send(200, json.dumps({**base, "object": "chat.completion", "choices": [
                {"index": 0, "message": msg, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode())
            return
        self._sse_start()
        ck = {**base, "object": "chat.completion.chunk"}
        self._sse({**ck, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})
        text = step.get("text") or ""
        for j in range(0, len(text), 8):
            self._sse({**ck, "choices": [{"index": 0, "delta": {"content": text[j:j + 8]}, "finish_reason": None}]})
        quirk = step.get("quirk")  # reproduce known server bugs: "index0" (Ollama #15457), "no_index" (#7881)
        for k, c in enumerate(calls):  # id+name first, then arguments in two fragments
            args = c["function"]["arguments"]
            h = len(args) // 2
            first = {"index": 0 if quirk == "index0" else k, "id": c["id"], "type": "function",
                     "function": {"name": c["function"]["name"], "arguments": args if quirk else args[:h]}}
            if quirk == "no_index":
                del first["index"]
            self._sse({**ck, "choices": [{"index": 0, "delta": {"tool_calls": [first]}, "finish_reason": None}]})
            if not quirk:
                self._sse({**ck, "choices": [{"index": 0, "delta": {"tool_calls": [
                    {"index": k, "function": {"arguments": args[h:]}}]}, "finish_reason": None}]})
        self._sse({**ck, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def main():
    global SCRIPT, LOG_PATH
    SCRIPT = json.load(open(sys.argv[1]))
    LOG_PATH = sys.argv[2]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = srv.server_address[1]
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            f.write(str(port))
    print(f"stand-in on 127.0.0.1:{port}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
