"""One call to the reviewer's model: the Responses API as Codex speaks it (streamed, `store:
false`, no `instructions`, the guardian headers), or Chat Completions for local servers
(Ollama, vLLM, llama.cpp), as the embedded agent speaks them. Codex's HTTP retries: four tries
for a server error or a dropped connection. The key is read from the variable the provider
names and sent only to that provider; nothing is written anywhere.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

HTTP_TRIES = 4  # Codex: 12 requests for 3 review attempts against an HTTP 500
BACKOFF_S = 0.2
HIGH_DEMAND = "We\u2019re currently experiencing high demand, which may cause temporary errors."
DROPPED = "stream disconnected before completion: error sending request"


class ReviewHttpError(Exception):
    """The model could not be asked: `message` is what Codex reports after its retries."""

    def __init__(self, message: str, *, retry_attempt: bool) -> None:
        super().__init__(message)
        self.message = message
        self.retry_attempt = retry_attempt  # another review attempt may help (5xx), or not


@dataclass(frozen=True)
class Provider:
    model: str
    base_url: str
    wire_api: str = "responses"  # or "chat"
    env_key: str | None = "OPENAI_API_KEY"
    name: str | None = None

    def key(self, env: Mapping[str, str]) -> str | None:
        return env.get(self.env_key) if self.env_key else None


@dataclass(frozen=True)
class Call:
    name: str
    call_id: str
    arguments: str


@dataclass(frozen=True)
class Turn:
    text: str
    calls: tuple[Call, ...]
    items: tuple[dict[str, Any], ...]  # the output items, kept in the conversation


async def ask_model(
    client: httpx.AsyncClient, provider: Provider, body: Mapping[str, Any],
    headers: Mapping[str, str],
) -> Turn:  # fmt: skip
    """One model call with Codex's HTTP retries."""
    import httpx  # deferred: ~30 ms, only once a reviewer asks (a hook's question asks none)

    last: ReviewHttpError | None = None
    for attempt in range(HTTP_TRIES):
        if attempt:
            await asyncio.sleep(BACKOFF_S * 2 ** (attempt - 1))
        try:
            if provider.wire_api == "chat":
                return await _chat(client, provider, body, headers)
            return await _responses(client, provider, body, headers)
        except ReviewHttpError as exc:
            last = exc
        except httpx.HTTPError:
            last = ReviewHttpError(DROPPED, retry_attempt=False)
    assert last is not None
    raise last


async def _responses(
    client: httpx.AsyncClient, provider: Provider, body: Mapping[str, Any],
    headers: Mapping[str, str],
) -> Turn:  # fmt: skip
    url = provider.base_url.rstrip("/") + "/responses"
    async with client.stream("POST", url, json=body, headers=dict(headers)) as resp:
        if resp.status_code >= 500 or resp.status_code == 429:
            await resp.aread()
            raise ReviewHttpError(HIGH_DEMAND, retry_attempt=True)
        if resp.status_code != 200:
            said = (await resp.aread())[:300].decode("utf-8", "replace")
            raise ReviewHttpError(f"unexpected status {resp.status_code}: {said}",
                                  retry_attempt=False)  # fmt: skip
        items: dict[int, dict[str, Any]] = {}
        from shellgate.agent.sse import sse_events  # deferred: httpx, as above

        async for event in sse_events(resp):
            try:
                data = json.loads(event.data)
            except ValueError:
                continue
            kind = data.get("type") or event.event
            if kind == "response.output_item.done":
                items[int(data.get("output_index", len(items)))] = data["item"]
            elif kind == "response.completed":
                output = (data.get("response") or {}).get("output") or [
                    items[i] for i in sorted(items)]  # fmt: skip
                return _turn(output)
            elif kind in ("response.failed", "error"):
                raise ReviewHttpError(HIGH_DEMAND, retry_attempt=True)
    raise ReviewHttpError(DROPPED, retry_attempt=False)


def _turn(output: list[dict[str, Any]]) -> Turn:
    text: list[str] = []
    calls: list[Call] = []
    for item in output:
        if item.get("type") == "message":
            text += [p.get("text") or "" for p in item.get("content") or []
                     if p.get("type") == "output_text"]  # fmt: skip
        elif item.get("type") == "function_call":
            calls.append(Call(item.get("name") or "", item.get("call_id") or "",
                              item.get("arguments") or "{}"))  # fmt: skip
    return Turn("".join(text), tuple(calls), tuple(output))


async def _chat(
    client: httpx.AsyncClient, provider: Provider, body: Mapping[str, Any],
    headers: Mapping[str, str],
) -> Turn:  # fmt: skip
    """Chat Completions: the same conversation as messages, the schema as response_format."""
    messages: list[dict[str, Any]] = []
    for item in body["input"]:
        if item.get("type") == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item["call_id"],
                             "content": item["output"]})  # fmt: skip
        elif item.get("type") == "function_call":
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": item["call_id"], "type": "function",
                 "function": {"name": item["name"], "arguments": item["arguments"]}}]})
        elif item.get("type") == "message":
            role = "system" if item["role"] == "developer" else item["role"]
            text = "".join(p.get("text", "") for p in item["content"])
            messages.append({"role": role, "content": text})
    fmt = body["text"]["format"]
    request = {"model": provider.model, "messages": messages, "stream": False,
               "tools": [{"type": "function", "function": {k: t[k] for k in (
                   "name", "description", "parameters")}} for t in body["tools"]],
               "response_format": {"type": "json_schema", "json_schema": {
                   "name": fmt["name"], "schema": fmt["schema"], "strict": False}}}  # fmt: skip
    url = provider.base_url.rstrip("/") + "/chat/completions"
    resp = await client.post(url, json=request, headers=dict(headers))
    if resp.status_code >= 500 or resp.status_code == 429:
        raise ReviewHttpError(HIGH_DEMAND, retry_attempt=True)
    if resp.status_code != 200:
        raise ReviewHttpError(f"unexpected status {resp.status_code}: {resp.text[:300]}",
                              retry_attempt=False)  # fmt: skip
    message = resp.json()["choices"][0]["message"]
    output: list[dict[str, Any]] = []
    if message.get("content"):
        output.append({"type": "message", "role": "assistant",
                       "content": [{"type": "output_text", "text": message["content"]}]})
    for call in message.get("tool_calls") or []:
        output.append({"type": "function_call", "call_id": call["id"],
                       "name": call["function"]["name"],
                       "arguments": call["function"]["arguments"]})  # fmt: skip
    return _turn(output)
