"""What a model backend gives the loop, and how it fails."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from shellgate.agent.history import Message, ToolCall

OnText = Callable[[str], None]


@dataclass(frozen=True)
class ModelTurn:
    """One model call's answer: its text and the tool calls it asked for."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None = None


class ModelError(Exception):
    """A model call that failed; `retryable` says whether trying again may help."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after


class StreamCut(ModelError):
    """The stream ended before its end marker (`[DONE]` / `response.completed`)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=True)


class ModelClient(Protocol):
    """One model call: send the whole history (stateless), stream text, return the turn."""

    async def complete(self, history: Sequence[Message], system: str,
                       tools: Sequence[dict[str, Any]], on_text: OnText) -> ModelTurn: ...

    def describe_request(self, history: Sequence[Message], system: str,
                         tools: Sequence[dict[str, Any]]) -> dict[str, Any]: ...

    async def aclose(self) -> None: ...
