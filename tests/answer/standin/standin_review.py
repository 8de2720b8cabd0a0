# ruff: noqa  (copied verbatim from ../shared/recipes: the stand-in the spec was recorded against)
"""Copied from ../shared/recipes/auto-review/ (the stand-in the spec's scenarios ran against).

Stand-in model server with two scripts: one for Codex's main model, one for its auto-reviewer.

Builds on ../agent-trials/standin.py (imported) (Responses API, SSE).  Every request is classified:
  reviewer  if the request carries Codex's guardian marker (header x-openai-subagent / session
            source mentioning "guardian", or text.format is a json_schema with "outcome"),
  main      otherwise.
Each class consumes its own script.  Every request is appended to LOG.jsonl with "role".

Reviewer steps:  {"json": {...}}      answer with that object as the assistant text
                 {"text": "..."}      answer with raw text (e.g. malformed JSON)
                 {"status": 500}      HTTP error
                 {"drop": true}       close the socket without answering
                 {"delay_ms": N, ...} sleep first (combinable)
The last reviewer step repeats when the script runs out (so retries see the same answer).
Main steps: as standin.py ({"tool": "<auto>", "command": ..., "extra": {...}}, {"text": ...},
{"tool_calls": [...]}, {"custom_tool_calls": [{"name": "apply_patch", "input": "*** Begin Patch..."}]}).

Usage: python standin_review.py MAIN.json REVIEW.json LOG.jsonl PORTFILE
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time

# the scripted Responses API stand-in this extends (next to it here; ../agent-trials/ in the recipes)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin as base  # noqa: E402

REVIEW: list[dict] = []
_rcur = 0
_rlock = threading.Lock()


def is_reviewer(headers, body) -> bool:
    h = {k.lower(): v for k, v in headers.items()}
    for k in ("x-openai-subagent", "x-codex-subagent"):
        if "guardian" in (h.get(k) or "").lower():
            return True
    fmt = ((body or {}).get("text") or {}).get("format") or {}
    if fmt.get("type") == "json_schema" and "outcome" in json.dumps(fmt.get("schema", {})):
        return True
    return False


def next_review() -> dict:
    global _rcur
    with _rlock:
        if not REVIEW:
            return {"json": {"risk_level": "low", "user_authorization": "high", "outcome": "allow",
                             "rationale": "default allow"}}
        step = REVIEW[min(_rcur, len(REVIEW) - 1)]
        _rcur += 1
        return step


class Handler(base.Handler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("latin-1")}
        role = "reviewer" if is_reviewer(self.headers, body) else "main"
        with base._lock, open(base.LOG_PATH, "a") as f:
            f.write(json.dumps({"t": time.time(), "role": role, "method": self.command,
                                "path": self.path, "headers": dict(self.headers), "body": body}) + "\n")
        if role == "reviewer":
            step = next_review()
            if "json" in step:
                step = {**step, "text": json.dumps(step["json"])}
        else:
            step = base.resolve_auto(base.next_step(), body)
        if step.get("delay_ms"):
            time.sleep(step["delay_ms"] / 1000)
        if step.get("drop"):
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        if "status" in step:
            self._send(step["status"], json.dumps({"error": {"message": step.get("body", "")}}).encode())
            return
        if self.path.endswith("/responses"):
            if step.get("custom_tool_calls"):  # freeform tools such as apply_patch
                self.responses_custom(body, step)
            else:
                self.responses_api(body, step)
        else:
            self._send(404, b'{"error":{"message":"not found"}}')


def _custom(self, body, step):
    import uuid
    items = [{"type": "custom_tool_call", "id": "ctc_" + uuid.uuid4().hex[:8], "status": "completed",
              "call_id": "call_" + uuid.uuid4().hex[:8], "name": c["name"], "input": c["input"]}
             for c in step["custom_tool_calls"]]
    resp = {"id": "resp_" + uuid.uuid4().hex[:12], "object": "response", "created_at": int(time.time()),
            "status": "completed", "model": body.get("model"), "output": items,
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}
    self._sse_start()
    self._sse({"type": "response.created", "response": {**resp, "status": "in_progress", "output": []}}, "response.created")
    for i, it in enumerate(items):
        self._sse({"type": "response.output_item.added", "output_index": i, "item": it}, "response.output_item.added")
        self._sse({"type": "response.output_item.done", "output_index": i, "item": it}, "response.output_item.done")
    self._sse({"type": "response.completed", "response": resp}, "response.completed")


Handler.responses_custom = _custom


def main():
    global REVIEW
    base.SCRIPT = json.load(open(sys.argv[1]))
    REVIEW = json.load(open(sys.argv[2]))
    base.LOG_PATH = sys.argv[3]
    srv = base.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[4], "w") as f:
        f.write(str(srv.server_address[1]))
    print(f"stand-in on 127.0.0.1:{srv.server_address[1]}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
