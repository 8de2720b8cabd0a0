"""What the agent needs to reach a model: URL, model name, wire API, and where the key lives.

The key itself is never stored: only the *name* of the environment variable that holds it, so
settings files and logs cannot leak it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class WireApi(StrEnum):
    CHAT = "chat"  # Chat Completions: OpenAI, Ollama, vLLM, LM Studio, llama.cpp all serve it
    RESPONSES = "responses"  # the Responses API, as Codex speaks it

    @classmethod
    def parse(cls, raw: str) -> WireApi:
        try:
            return cls(raw)
        except ValueError:
            raise ValueError(f"invalid wire API: {raw!r} (expected chat or responses)") from None


@dataclass(frozen=True)
class AgentConfig:
    model_url: str = "http://127.0.0.1:11434/v1"  # Ollama's OpenAI-compatible endpoint
    model: str = "qwen2.5-coder:7b"
    wire_api: WireApi = WireApi.CHAT
    api_key_env: str = "OPENAI_API_KEY"
    stream: bool = True
    max_turns: int = 25  # model calls per user message, as in Codex's design brief
    budget_s: float = 600.0  # wall-clock budget per user message
    max_retries: int = 5  # 429 / 5xx retries (Codex: "Reconnecting... 1/5")
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 300.0  # a local model can think for a long time between chunks
    max_output_bytes: int = 40_000  # head + tail kept beyond this (Codex: ~10k tokens)

    def api_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        env = os.environ if environ is None else environ
        return env.get(self.api_key_env) or None
