"""A scripted stand-in model server on 127.0.0.1, no model needed: the wire protocols of the
OpenAI API (ShellGate's agent, Codex), the Anthropic Messages API (Claude Code) and the Gemini API
(Gemini CLI), one module each.

Stdlib only, so it runs anywhere the project does. It serves
  POST /v1/chat/completions, /v1/responses    OpenAI (JSON, or SSE when "stream": true)
  POST /v1/messages                           Anthropic (JSON, or SSE when "stream": true)
  POST /v1beta/models/M:generateContent, :streamGenerateContent    Gemini (JSON, SSE)
  POST /v1/messages/count_tokens, M:countTokens                    a token count
  GET  /v1/models                             a one-model list (Anthropic's shape when asked
                                              with `anthropic-version`)
Each main-loop request consumes the next step of a script (a JSON list); side requests (Claude
Code's titles, which offer no tools; Gemini CLI's helpers, which ask for JSON) get a short
answer and take no step. A step is an object with:
  "text": "..."                      the assistant's text (streamed in pieces)
  "tool_calls": [{"name", "arguments": {...} | "raw_arguments": "...", "id"?, "namespace"?}]
                                     tool calls, in each protocol's own shape
  "tool": "<auto>", "command": "...", "extra": {...}
                                     a call to whichever shell tool the client advertised
                                     (script.SHELL_TOOLS: Codex's, ShellGate's, Claude Code's
                                     `Bash`, Gemini CLI's `run_shell_command`)
  "status": 429, "body": "...", "retry_after": 1
                                     an HTTP error (Retry-After header when given)
  "delay_ms": N                      wait before answering (a slow model)
OpenAI only:
  "stall_ms": N                      stream the first chunk, then stall (for cancellation)
  "cut": true                        close the stream before its end (no [DONE] / completed)
  "quirk": "index0" | "no_index" | "whole_args"
                                     local servers' tool-call streaming bugs: every call at
                                     index 0 (Ollama #15457), no index at all (Ollama #7881),
                                     whole arguments in one chunk (llama.cpp, Ollama)
Every request (method, path, kind: main | side | other, body, header names) is logged in memory
and, optionally, appended to a JSON-lines file; a client disconnect during a stall is logged too.

Usage: python -m shellgate.agent.standin SCRIPT.json [--log LOG.jsonl] [--port-file FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple

from shellgate.agent.standin import anthropic, gemini, openai
from shellgate.agent.standin.script import Step, load_script, resolve_auto

__all__ = ["Handler", "StandIn", "Step", "load_script", "main", "resolve_auto"]


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
        handler = type("Handler", (Handler,), {"standin": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)
        self._thread.start()
        return self.url

    @property
    def root(self) -> str:
        """The base URL of Anthropic's and Gemini's clients (they add `/v1…` themselves)."""
        assert self._httpd is not None, "not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def url(self) -> str:
        """The base URL of OpenAI's clients."""
        return self.root + "/v1"

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
        """The bodies of the main-loop model requests (each took a step), in order."""
        return [r["body"] for r in self.requests if r["kind"] == "main"]

    def record(self, entry: dict[str, Any], *, event: bool = False) -> None:
        with self._lock:
            (self.events if event else self.requests).append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    standin: StandIn

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the JSONL log is the log
        pass

    # ---- plumbing ---------------------------------------------------------------------------
    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _record(self, body: Any, kind: str) -> None:
        # Header names and the auth scheme only: a key never lands in a log, even a test's.
        auth = self.headers.get("Authorization") or ""
        self.standin.record({
            "t": time.time(), "method": self.command, "path": self.path, "kind": kind,
            "headers": sorted(k.lower() for k in self.headers),
            "auth_scheme": auth.split(" ", 1)[0] if auth else None, "body": body,
        })

    def sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def sse(self, data: Any, event: str | None = None) -> None:
        chunk = (f"event: {event}\n" if event else "") + f"data: {json.dumps(data)}\n\n"
        self.wfile.write(chunk.encode())
        self.wfile.flush()

    def stall(self, step: Step) -> None:
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
        self._record(None, "other")
        if not self.path.split("?")[0].rstrip("/").endswith("/models"):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
        elif self.headers.get("anthropic-version"):
            self.send_json(200, anthropic.MODELS)
        else:
            self.send_json(200, {"object": "list", "data": [
                {"id": "stand-in", "object": "model", "created": 0, "owned_by": "shellgate"}]})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("latin-1")}
        path = self.path.split("?")[0]
        if path.endswith(("/messages/count_tokens", ":countTokens")):
            self._record(body, "other")
            self.send_json(200, {"input_tokens": 42, "totalTokens": 42})
            return
        wire = next((w for w in WIRES if path.endswith(w.suffix)), None)
        if wire is None:
            self._record(body, "other")
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        side = wire.protocol.side(body)
        self._record(body, "main" if side is None else "side")
        step = side or resolve_auto(self.standin.next_step(), body)
        if step.get("delay_ms"):
            time.sleep(step["delay_ms"] / 1000)
        if "status" in step:
            headers = {}
            if "retry_after" in step:
                headers["Retry-After"] = str(step["retry_after"])
            self.send_json(step["status"], wire.protocol.error(step["status"],
                                                                step.get("body", "")), headers)
            return
        try:
            wire.reply(self, body, step)
        except OSError:  # the client went away (cancelled): nothing more to send
            self.close_connection = True


class _Wire(NamedTuple):
    suffix: str | tuple[str, ...]
    protocol: Any  # the module: side(body), error(status, message)
    reply: Callable[[Handler, dict[str, Any], Step], None]


WIRES = (
    _Wire("/chat/completions", openai, openai.chat),
    _Wire("/responses", openai, openai.responses),
    _Wire("/messages", anthropic, anthropic.reply),
    _Wire((":generateContent", ":streamGenerateContent"), gemini, gemini.reply),
)


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

