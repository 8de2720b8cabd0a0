"""Shared fixtures: the stand-in model server on 127.0.0.1 and a session wired to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from agent_fakes import ScriptedRunner

from shellgate.agent.chat import ChatClient
from shellgate.agent.config import AgentConfig, WireApi
from shellgate.agent.loop import AgentSession
from shellgate.agent.model import ModelClient
from shellgate.agent.responses import ResponsesClient
from shellgate.agent.standin import StandIn


@dataclass
class Harness:
    standin: StandIn
    runner: ScriptedRunner
    session: AgentSession
    client: ModelClient
    events: list[tuple[str, dict[str, Any]]]

    def methods(self) -> list[str]:
        return [m for m, _ in self.events]

    def items(self, kind: str) -> list[dict[str, Any]]:
        return [p["item"] for m, p in self.events
                if m == "item/completed" and p["item"]["type"] == kind]


@pytest.fixture
async def harness() -> AsyncIterator[Callable[..., Harness]]:
    made: list[tuple[StandIn, ModelClient]] = []

    def make(script: list[dict[str, Any]], *, wire: WireApi = WireApi.CHAT, stream: bool = True,
             runner: ScriptedRunner | None = None, cwd: str = "/tmp", **config: Any) -> Harness:
        standin = StandIn(script)
        standin.start()
        cfg = AgentConfig(model_url=standin.url, model="stand-in", wire_api=wire, stream=stream,
                          **config)
        client: ModelClient = (ChatClient if wire is WireApi.CHAT else ResponsesClient)(cfg)
        made.append((standin, client))
        events: list[tuple[str, dict[str, Any]]] = []
        runner = runner or ScriptedRunner()
        session = AgentSession(client, runner, cfg, cwd,
                               lambda m, p: events.append((m, p)))
        return Harness(standin, runner, session, client, events)

    yield make
    for standin, client in made:
        await client.aclose()
        standin.stop()
