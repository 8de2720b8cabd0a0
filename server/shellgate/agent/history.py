"""The conversation in a provider-neutral form; each backend renders it to its wire format."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    name: str
    arguments: str  # raw JSON text as the model sent it: parsed only once the stream ended


@dataclass(frozen=True)
class UserMessage:
    text: str


@dataclass(frozen=True)
class AssistantMessage:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    output: str


@dataclass(frozen=True)
class DeveloperMessage:
    """Context for the model from outside the conversation: a Codex hook's
    `additionalContext`, which Codex sends as a developer message in the next request."""

    text: str


Message = UserMessage | AssistantMessage | ToolResult | DeveloperMessage
