"""The model client for a configuration."""

from __future__ import annotations

from shellgate.agent.chat import ChatClient
from shellgate.agent.config import AgentConfig, WireApi
from shellgate.agent.model import ModelClient
from shellgate.agent.responses import ResponsesClient


def make_model_client(config: AgentConfig) -> ModelClient:
    if config.wire_api is WireApi.RESPONSES:
        return ResponsesClient(config)
    return ChatClient(config)
