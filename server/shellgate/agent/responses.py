"""The Responses API over httpx, stateless like Codex (`store: false`, full input each call)."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import httpx

from shellgate.agent.history import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    ToolCall,
    UserMessage,
)
from shellgate.agent.model import ModelError, ModelTurn, OnText, StreamCut
from shellgate.agent.sse import sse_events
from shellgate.agent.transport import HttpModelClient


def render_input(history: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in history:
        out.extend(_rendered(m))
    return out


# Rendered once per message, as in chat.py (the dicts are shared and must not be changed).
@functools.lru_cache(maxsize=4096)
def _rendered(m: Message) -> tuple[dict[str, Any], ...]:
    if isinstance(m, UserMessage | DeveloperMessage):
        role = "user" if isinstance(m, UserMessage) else "developer"
        return ({"type": "message", "role": role,
                 "content": [{"type": "input_text", "text": m.text}]},)
    if isinstance(m, AssistantMessage):
        out: list[dict[str, Any]] = []
        if m.text:
            out.append({"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": m.text}]})
        out.extend({"type": "function_call", "call_id": c.call_id, "name": c.name,
                    "arguments": c.arguments} for c in m.tool_calls)
        return tuple(out)
    return ({"type": "function_call_output", "call_id": m.call_id, "output": m.output},)


def responses_tool(tool: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "name": tool["name"], "description": tool["description"],
            "strict": False, "parameters": tool["parameters"]}


def _turn_from_output(output: list[dict[str, Any]], on_text: OnText | None) -> ModelTurn:
    text: list[str] = []
    calls: list[ToolCall] = []
    for n, item in enumerate(output):
        if item.get("type") == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text" and part.get("text"):
                    text.append(part["text"])
                    if on_text is not None:
                        on_text(part["text"])
        elif item.get("type") == "function_call":
            calls.append(ToolCall(item.get("call_id") or item.get("id") or f"call_{n}",
                                  item.get("name") or "", item.get("arguments") or ""))
    return ModelTurn("".join(text), tuple(calls), "tool_calls" if calls else "stop")


class ResponsesClient(HttpModelClient):
    endpoint = "responses"

    def describe_request(self, history: Sequence[Message], system: str,
                         tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {"model": self.config.model, "instructions": system,
                "input": render_input(history), "tools": [responses_tool(t) for t in tools],
                "tool_choice": "auto", "parallel_tool_calls": True, "store": False,
                "stream": self.stream}

    def _whole(self, content: bytes, on_text: OnText) -> ModelTurn:
        try:
            output = json.loads(content)["output"]
        except (ValueError, KeyError, TypeError):
            raise ModelError("the model server's answer is not a response object: "
                             f"{content[:200]!r}") from None
        return _turn_from_output(output, on_text)

    async def _streamed(self, resp: httpx.Response, on_text: OnText) -> ModelTurn:
        done_items: dict[int, dict[str, Any]] = {}
        streamed_text = False
        async for ev in sse_events(resp):
            try:
                data = json.loads(ev.data)
            except ValueError:
                raise ModelError(f"the model server sent an event that is not JSON: "
                                 f"{ev.data[:200]!r}") from None
            kind = data.get("type") or ev.event
            if kind == "response.output_text.delta":
                streamed_text = True
                on_text(data.get("delta") or "")
            elif kind == "response.output_item.done":
                done_items[int(data.get("output_index", len(done_items)))] = data["item"]
            elif kind == "response.completed":
                output = (data.get("response") or {}).get("output")
                # The completed response is authoritative; fall back to the items seen.
                items = output if output else [done_items[i] for i in sorted(done_items)]
                return _turn_from_output(items, None if streamed_text else on_text)
            elif kind in ("response.failed", "error"):
                err = (data.get("response") or {}).get("error") or data.get("error") or data
                raise ModelError(f"the model server reported an error: {err}", retryable=True)
            elif kind == "response.incomplete":
                raise ModelError("the model's answer is incomplete: "
                                 f"{(data.get('response') or {}).get('incomplete_details')}")
        raise StreamCut("the model's answer stopped before response.completed")
