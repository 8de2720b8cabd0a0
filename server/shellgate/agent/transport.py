"""The HTTP side shared by both wire APIs: client, status handling, actionable errors."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Sequence
from typing import Any

import httpx

from shellgate.agent.config import AgentConfig, WireApi
from shellgate.agent.history import Message
from shellgate.agent.model import ModelError, ModelTurn, OnText


def make_client(config: AgentConfig) -> httpx.AsyncClient:
    headers = {"Accept": "application/json, text/event-stream"}
    key = config.api_key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    timeout = httpx.Timeout(config.read_timeout_s, connect=config.connect_timeout_s)
    # trust_env=False: no proxy from the environment for a loopback model server, and no
    # .netrc credentials sent along.
    return httpx.AsyncClient(base_url=config.model_url.rstrip("/") + "/", headers=headers,
                             timeout=timeout, trust_env=False)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds: a number, or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def _server_message(body: bytes) -> str:
    try:
        data: Any = json.loads(body)
    except ValueError:
        return body[:300].decode("utf-8", "replace").strip()
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
        if data.get("detail"):
            return str(data["detail"])[:300]
    return body[:300].decode("utf-8", "replace").strip()


def status_error(config: AgentConfig, status: int, body: bytes,
                 retry_after: str | None) -> ModelError:
    """Turn an HTTP error into what the user (not the model) should read and do."""
    said = _server_message(body)
    said = f" The server said: {said}" if said else ""
    if status == 429 or status >= 500:
        return ModelError(f"model server busy or failing (HTTP {status}).{said}", status=status,
                          retryable=True, retry_after=parse_retry_after(retry_after))
    if status == 401 or status == 403:
        hint = (f"Set the environment variable {config.api_key_env} to your API key "
                "(ShellGate reads the key from it and never stores it).")
        return ModelError(f"the model server refused the credentials (HTTP {status}).{said} "
                          f"{hint}", status=status)
    if status == 404:
        route = "responses" if config.wire_api is WireApi.RESPONSES else "chat/completions"
        alt = (" Not every server serves the Responses API: try --wire-api chat."
               if config.wire_api is WireApi.RESPONSES else "")
        return ModelError(
            f"not found (HTTP 404): {config.model_url.rstrip('/')}/{route} with model "
            f"{config.model!r}.{said} Check --model-url (it usually ends in /v1) and --model "
            f"(GET {config.model_url.rstrip('/')}/models lists the server's models).{alt}",
            status=status)
    if status == 400:
        return ModelError(
            f"the model server rejected the request (HTTP 400).{said} If it cannot call tools: "
            "vLLM needs `--enable-auto-tool-choice --tool-call-parser <parser>`, llama.cpp's "
            "llama-server needs `--jinja`, and the model itself must support tool calling.",
            status=status)
    return ModelError(f"model request failed (HTTP {status}).{said}", status=status)


def transport_error(config: AgentConfig, exc: httpx.HTTPError) -> ModelError:
    if isinstance(exc, httpx.ConnectError):
        return ModelError(f"cannot reach the model server at {config.model_url}: {exc}. "
                          "Is it running? (--model-url sets the address.)")
    if isinstance(exc, httpx.TimeoutException):
        return ModelError(f"the model server at {config.model_url} timed out ({exc!r})",
                          retryable=True)
    # A connection dropped mid-answer: worth one more try.
    return ModelError(f"the connection to the model server broke: {exc!r}", retryable=True)


class HttpModelClient:
    """What both wire APIs do alike: one POST to `endpoint`, whole or streamed, errors made
    actionable, and a fall back to whole answers for servers that refuse streamed tool calls.
    Subclasses say how a request looks and how an answer is read."""

    endpoint = ""

    def __init__(self, config: AgentConfig, client: httpx.AsyncClient | None = None) -> None:
        self.config = config
        self.http = client or make_client(config)
        self.stream = config.stream

    def describe_request(self, history: Sequence[Message], system: str,
                         tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
        raise NotImplementedError

    def _whole(self, content: bytes, on_text: OnText) -> ModelTurn:
        raise NotImplementedError

    async def _streamed(self, resp: httpx.Response, on_text: OnText) -> ModelTurn:
        raise NotImplementedError

    async def complete(self, history: Sequence[Message], system: str,
                       tools: Sequence[dict[str, Any]], on_text: OnText) -> ModelTurn:
        try:
            return await self._complete(history, system, tools, on_text)
        except ModelError as exc:
            if exc.status != 400 or not self.stream:
                raise
            # Some servers refuse streamed tool calls: ask for whole answers from now on.
            self.stream = False
            return await self._complete(history, system, tools, on_text)

    async def _complete(self, history: Sequence[Message], system: str,
                        tools: Sequence[dict[str, Any]], on_text: OnText) -> ModelTurn:
        body = self.describe_request(history, system, tools)
        try:
            if not self.stream:
                resp = await self.http.post(self.endpoint, json=body)
                if resp.status_code != 200:
                    raise status_error(self.config, resp.status_code, resp.content,
                                       resp.headers.get("Retry-After"))
                return self._whole(resp.content, on_text)
            async with self.http.stream("POST", self.endpoint, json=body) as resp:
                if resp.status_code != 200:
                    raise status_error(self.config, resp.status_code, await resp.aread(),
                                       resp.headers.get("Retry-After"))
                return await self._streamed(resp, on_text)
        except httpx.HTTPError as exc:
            raise transport_error(self.config, exc) from exc

    async def aclose(self) -> None:
        await self.http.aclose()
