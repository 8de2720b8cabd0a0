"""Chat Completions over httpx: stateless (the whole history each call), streamed by default."""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Sequence
from typing import Any

import httpx

from shellgate.agent.accumulator import ToolCallAccumulator
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


def render_messages(history: Sequence[Message], system: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for m in history:
        out.extend(_rendered(m))
    return out


# Messages are immutable and the whole history is sent on every call: render each one once.
# (The dicts are shared between requests and must not be changed.)
@functools.lru_cache(maxsize=4096)
def _rendered(m: Message) -> tuple[dict[str, Any], ...]:
    if isinstance(m, UserMessage):
        return ({"role": "user", "content": m.text},)
    if isinstance(m, DeveloperMessage):  # Chat Completions' closest role
        return ({"role": "system", "content": m.text},)
    if isinstance(m, AssistantMessage):
        msg: dict[str, Any] = {"role": "assistant", "content": m.text or None}
        if m.tool_calls:
            msg["tool_calls"] = [
                {"id": c.call_id, "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments}}
                for c in m.tool_calls]
        return (msg,)
    return ({"role": "tool", "tool_call_id": m.call_id, "content": m.output},)


def chat_tool(tool: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": tool["name"], "description": tool["description"],
        "parameters": tool["parameters"]}}


class ChatClient(HttpModelClient):
    endpoint = "chat/completions"

    def describe_request(self, history: Sequence[Message], system: str,
                         tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.config.model,
                                "messages": render_messages(history, system),
                                "tools": [chat_tool(t) for t in tools],
                                "tool_choice": "auto", "stream": self.stream}
        return body

    def _whole(self, content: bytes, on_text: OnText) -> ModelTurn:
        try:
            data = json.loads(content)
            choice = data["choices"][0]
            msg = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelError(f"the model server's answer is not a chat completion: "
                             f"{content[:200]!r}") from None
        text = msg.get("content") or ""
        if text:
            on_text(text)
        prefix = "call_" + uuid.uuid4().hex[:8]
        calls = tuple(
            ToolCall(c.get("id") or f"{prefix}_{n}", (c.get("function") or {}).get("name") or "",
                     _arguments_text((c.get("function") or {}).get("arguments")))
            for n, c in enumerate(msg.get("tool_calls") or []))
        return ModelTurn(text, calls, choice.get("finish_reason"))

    async def _streamed(self, resp: httpx.Response, on_text: OnText) -> ModelTurn:
        text: list[str] = []
        acc = ToolCallAccumulator()
        finish: str | None = None
        done = False
        async for ev in sse_events(resp):
            if ev.data == "[DONE]":
                done = True
                break
            try:
                chunk = json.loads(ev.data)
            except ValueError:
                raise ModelError(f"the model server sent a chunk that is not JSON: "
                                 f"{ev.data[:200]!r}") from None
            if isinstance(chunk, dict) and chunk.get("error"):
                raise ModelError(f"the model server reported an error mid-stream: "
                                 f"{chunk['error']}", retryable=True)
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    text.append(delta["content"])
                    on_text(delta["content"])
                for tc in delta.get("tool_calls") or []:
                    acc.feed(tc)
                finish = choice.get("finish_reason") or finish
        # Some servers end with a finish_reason and close without [DONE]; that is complete.
        if not done and finish is None:
            raise StreamCut("the model's answer stopped before its end")
        return ModelTurn("".join(text), acc.calls("call_" + uuid.uuid4().hex[:8]), finish)



def _arguments_text(raw: Any) -> str:
    # Some servers send arguments as an object instead of a JSON string.
    if isinstance(raw, str):
        return raw
    return json.dumps(raw) if raw is not None else ""
