"""A scripted stand-in model server: the OpenAI wire protocols on 127.0.0.1, no model needed.

Stdlib only, so it runs anywhere the project does. It serves
  POST /v1/chat/completions   Chat Completions (JSON, or SSE chunks when "stream": true)
  POST /v1/responses          Responses API (JSON, or SSE events when "stream": true)
  GET  /v1/models             a one-model list
Each POST consumes the next step of a script (a JSON list). A step is an object with:
  "text": "..."                      the assistant's text (streamed in 8-character deltas)
  "tool_calls": [{"name", "arguments": {...} | "raw_arguments": "...", "id"?}]
  "tool": "<auto>", "command": "...", "extra": {...}
                                     a call to whichever shell tool the client advertised
  "status": 429, "body": "...", "retry_after": 1
                                     an HTTP error (Retry-After header when given)
  "delay_ms": N                      wait before answering (a slow model)
  "stall_ms": N                      stream the first chunk, then stall (for cancellation)
  "cut": true                        close the stream before its end (no [DONE] / completed)
  "quirk": "index0" | "no_index" | "whole_args"
                                     local servers' tool-call streaming bugs: every call at
                                     index 0 (Ollama #15457), no index at all (Ollama #7881),
                                     whole arguments in one chunk (llama.cpp, Ollama)
Every request (method, path, body, header names) is logged in memory and, optionally, appended
to a JSON-lines file; a client disconnect during a stall is logged too.

Usage: python -m shellgate.agent.standin SCRIPT.json [--log LOG.jsonl] [--port-file FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Step = dict[str, Any]
SHELL_TOOLS = (
    ("shell_command", lambda cmd: {"command": cmd}),
    ("exec_command", lambda cmd: {"cmd": cmd}),
    ("shell", lambda cmd: {"command": ["bash", "-lc", cmd]}),
    ("run_shell", lambda cmd: {"command": cmd}),
)


def _uid(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:10]


def _tool_names(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        name = tool.get("name") or (tool.get("function") or {}).get("name")
        if name:
            names.append(name)
    return names


def resolve_auto(step: Step, body: dict[str, Any]) -> Step:
    """Turn {"tool": "<auto>", "command": ...} into a call to the shell tool this client offers."""
    if step.get("tool") != "<auto>":
        return step
    names = _tool_names(body)
    for name, shape in SHELL_TOOLS:
        if name in names:
            args = {**shape(step["command"]), **step.get("extra", {})}
            return {**step, "tool_calls": [{"name": name, "arguments": args}]}
    return {**step, "text": f"(no shell tool among {names})"}


class StandIn:
    """The server, usable in-process (tests, `shellgate agent --standin`) or as a program."""

    def __init__(self, script: Sequence[Step], log_path: Path | None = None) -> None:
        self.script = list(script)
        self.log_path = log_path
        self.requests: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []  # disconnects seen during stalls
        self._cursor = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle --------------------------------------------------------------------------
    def start(self, port: int = 0) -> str:
        """Bind 127.0.0.1 (never another interface) and serve in a daemon thread; return /v1 URL."""
        handler = type("Handler", (_Handler,), {"standin": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)
        self._thread.start()
        return self.url

    @property
    def url(self) -> str:
        assert self._httpd is not None, "not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> StandIn:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- script and log ---------------------------------------------------------------------
    def next_step(self) -> Step:
        with self._lock:
            if self._cursor < len(self.script):
                step = self.script[self._cursor]
                self._cursor += 1
                return step
        return {"text": "(script exhausted)"}

    @property
    def posts(self) -> list[dict[str, Any]]:
        """The bodies of the POST requests, in order."""
        return [r["body"] for r in self.requests if r["method"] == "POST"]

    def record(self, entry: dict[str, Any], *, event: bool = False) -> None:
        with self._lock:
            (self.events if event else self.requests).append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    standin: StandIn

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the JSONL log is the log
        pass

    # ---- plumbing ---------------------------------------------------------------------------
    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _record(self, body: Any) -> None:
        # Header names and the auth scheme only: a key never lands in a log, even a test's.
        auth = self.headers.get("Authorization") or ""
        self.standin.record({
            "t": time.time(), "method": self.command, "path": self.path,
            "headers": sorted(k.lower() for k in self.headers),
            "auth_scheme": auth.split(" ", 1)[0] if auth else None, "body": body,
        })

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, data: Any, event: str | None = None) -> None:
        chunk = (f"event: {event}\n" if event else "") + f"data: {json.dumps(data)}\n\n"
        self.wfile.write(chunk.encode())
        self.wfile.flush()

    def _stall(self, step: Step) -> None:
        """Hold the stream open, pinging so that a client's disconnect is noticed and logged."""
        deadline = time.monotonic() + step["stall_ms"] / 1000
        while time.monotonic() < deadline:
            try:
                self.wfile.write(b": ping\n\n")
                self.wfile.flush()
            except OSError:
                self.standin.record({"t": time.time(), "event": "client_disconnected",
                                     "path": self.path}, event=True)
                raise
            time.sleep(0.005)

    # ---- routes -----------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [
                {"id": "stand-in", "object": "model", "created": 0, "owned_by": "shellgate"}]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("latin-1")}
        self._record(body)
        if not (self.path.endswith("/responses") or self.path.endswith("/chat/completions")):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        step = resolve_auto(self.standin.next_step(), body)
        if step.get("delay_ms"):
            time.sleep(step["delay_ms"] / 1000)
        if "status" in step:
            headers = {}
            if "retry_after" in step:
                headers["Retry-After"] = str(step["retry_after"])
            self._send(step["status"], {"error": {"message": step.get("body", ""),
                                                  "type": "standin_error"}}, headers)
            return
        try:
            if self.path.endswith("/responses"):
                self._responses(body, step)
            else:
                self._chat(body, step)
        except OSError:  # the client went away (cancelled): nothing more to send
            self.close_connection = True

    # ---- Chat Completions -------------------------------------------------------------------
    def _chat(self, body: dict[str, Any], step: Step) -> None:
        calls: list[dict[str, Any]] = [{"id": tc.get("id") or _uid("call_"), "type": "function",
                  "function": {"name": tc["name"], "arguments": _arguments(tc)}}
                 for tc in step.get("tool_calls", [])]
        finish = "tool_calls" if calls else "stop"
        base = {"id": _uid("chatcmpl-"), "created": int(time.time()),
                "model": body.get("model", "stand-in"), "system_fingerprint": "standin"}
        if not body.get("stream"):
            msg: dict[str, Any] = {"role": "assistant", "content": step.get("text"),
                                   "refusal": None}
            if calls:
                msg["tool_calls"] = calls
            self._send(200, {**base, "object": "chat.completion", "choices": [
                {"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
            return
        chunk = {**base, "object": "chat.completion.chunk"}

        def delta(d: dict[str, Any], finish_reason: str | None = None) -> None:
            self._sse({**chunk, "choices": [{"index": 0, "delta": d,
                                             "finish_reason": finish_reason}]})

        self._sse_start()
        delta({"role": "assistant", "content": ""})
        if step.get("stall_ms"):
            self._stall(step)
        text = step.get("text") or ""
        for j in range(0, len(text), 8):
            delta({"content": text[j:j + 8]})
        quirk = step.get("quirk")
        for k, call in enumerate(calls):
            args = call["function"]["arguments"]
            whole = quirk is not None  # the buggy servers send whole arguments at once
            half = len(args) // 2
            first: dict[str, Any] = {
                "index": 0 if quirk == "index0" else k, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"],
                             "arguments": args if whole else args[:half]}}
            if quirk == "no_index":
                del first["index"]
            delta({"tool_calls": [first]})
            if not whole:
                delta({"tool_calls": [{"index": k, "function": {"arguments": args[half:]}}]})
        if step.get("cut"):
            return  # connection closes with no finish_reason and no [DONE]
        delta({}, finish)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    # ---- Responses --------------------------------------------------------------------------
    def _responses(self, body: dict[str, Any], step: Step) -> None:
        items: list[dict[str, Any]] = []
        if step.get("text") is not None:
            items.append({"type": "message", "id": _uid("msg_"), "role": "assistant",
                          "status": "completed", "content": [
                              {"type": "output_text", "text": step["text"], "annotations": []}]})
        for tc in step.get("tool_calls", []):
            item = {"type": "function_call", "id": _uid("fc_"),
                    "call_id": tc.get("id") or _uid("call_"), "name": tc["name"],
                    "arguments": _arguments(tc), "status": "completed"}
            if tc.get("namespace"):
                item["namespace"] = tc["namespace"]
            items.append(item)
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}
        resp = {"id": _uid("resp_"), "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": body.get("model", "stand-in"), "output": items,
                "usage": usage, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
        if not body.get("stream"):
            self._send(200, resp)
            return
        seq = iter(range(1_000_000))

        def event(kind: str, **fields: Any) -> None:
            self._sse({"type": kind, "sequence_number": next(seq), **fields}, kind)

        self._sse_start()
        event("response.created", response={**resp, "status": "in_progress", "output": []})
        if step.get("stall_ms"):
            self._stall(step)
        for i, item in enumerate(items):
            if item["type"] == "message":
                event("response.output_item.added", output_index=i,
                      item={**item, "status": "in_progress", "content": []})
                part = {"type": "output_text", "text": "", "annotations": []}
                event("response.content_part.added", item_id=item["id"], output_index=i,
                      content_index=0, part=part)
                text = item["content"][0]["text"]
                for j in range(0, len(text), 8):
                    event("response.output_text.delta", item_id=item["id"], output_index=i,
                          content_index=0, delta=text[j:j + 8], logprobs=[])
                event("response.output_text.done", item_id=item["id"], output_index=i,
                      content_index=0, text=text, logprobs=[])
                event("response.content_part.done", item_id=item["id"], output_index=i,
                      content_index=0, part=item["content"][0])
            else:
                event("response.output_item.added", output_index=i,
                      item={**item, "status": "in_progress", "arguments": ""})
                args = item["arguments"]
                for j in range(0, len(args), 16):
                    event("response.function_call_arguments.delta", item_id=item["id"],
                          output_index=i, delta=args[j:j + 16])
                event("response.function_call_arguments.done", item_id=item["id"],
                      output_index=i, arguments=args, name=item["name"])
            event("response.output_item.done", output_index=i, item=item)
        if step.get("cut"):
            return
        event("response.completed", response=resp)


def _arguments(call: dict[str, Any]) -> str:
    if "raw_arguments" in call:  # deliberately broken JSON, for the "never executed" tests
        return str(call["raw_arguments"])
    return json.dumps(call.get("arguments", {}))


def load_script(path: Path) -> list[Step]:
    """Read a script file; a clear error (file, line, column) instead of a traceback."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read script: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise ValueError(f"{path}:1:1: a script is a JSON list of step objects")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shellgate.agent.standin",
                                     description="Scripted stand-in model server (127.0.0.1).")
    parser.add_argument("script", type=Path)
    parser.add_argument("--log", type=Path, help="append every request to this JSONL file")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--port-file", type=Path, help="write the chosen port to this file")
    args = parser.parse_args(argv)
    try:
        script = load_script(args.script)
    except ValueError as exc:
        print(f"standin: {exc}", file=sys.stderr)
        return 2
    server = StandIn(script, args.log)
    url = server.start(args.port)
    if args.port_file:
        args.port_file.write_text(url.rsplit(":", 1)[1].split("/")[0])
    print(f"stand-in model server on {url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
