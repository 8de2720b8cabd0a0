"""The Anthropic Messages API (Claude Code): JSON, or SSE when "stream": true, the way the real
API streams (text in pieces, a tool call's input as `input_json_delta` halves)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from shellgate.agent.standin.script import Step, uid

if TYPE_CHECKING:
    from shellgate.agent.standin import Handler

MODEL = "claude-sonnet-4-5"
# What GET /v1/models answers a client that sends `anthropic-version`.
MODELS = {"data": [{"type": "model", "id": MODEL, "display_name": "stand-in",
                    "created_at": "2025-01-01T00:00:00Z"}],
          "has_more": False, "first_id": MODEL, "last_id": MODEL}  # fmt: skip


def side(body: dict[str, Any]) -> Step | None:
    # Claude Code's main loop offers tools; titles and summaries do not, and take no step.
    return None if body.get("tools") else {"text": "OK"}


def error(status: int, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "api_error", "message": message}}


def reply(h: Handler, body: dict[str, Any], step: Step) -> None:
    blocks: list[dict[str, Any]] = []
    if step.get("text") is not None:
        blocks.append({"type": "text", "text": step["text"]})
    for tc in step.get("tool_calls", []):
        blocks.append({"type": "tool_use", "id": tc.get("id") or uid("toolu_"),
                       "name": tc["name"], "input": tc.get("arguments", {})})
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0}
    msg = {"id": uid("msg_"), "type": "message", "role": "assistant",
           "model": body.get("model", MODEL), "content": blocks, "stop_reason": stop,
           "stop_sequence": None, "usage": usage}
    if not body.get("stream"):
        h.send_json(200, msg)
        return

    def event(kind: str, **fields: Any) -> None:
        h.sse({"type": kind, **fields}, kind)

    h.sse_start()
    event("message_start", message={**msg, "content": [], "stop_reason": None,
                                    "usage": {**usage, "output_tokens": 1}})
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            event("content_block_start", index=i, content_block={"type": "text", "text": ""})
            text = block["text"]
            for j in range(0, len(text), 16):
                event("content_block_delta", index=i,
                      delta={"type": "text_delta", "text": text[j:j + 16]})
        else:
            event("content_block_start", index=i, content_block={**block, "input": {}})
            js = json.dumps(block["input"])
            for part in (js[:len(js) // 2], js[len(js) // 2:]):
                event("content_block_delta", index=i,
                      delta={"type": "input_json_delta", "partial_json": part})
        event("content_block_stop", index=i)
    event("message_delta", delta={"stop_reason": stop, "stop_sequence": None},
          usage={"output_tokens": 5})
    event("message_stop")
