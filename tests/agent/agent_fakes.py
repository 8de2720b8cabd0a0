"""A scripted command runner: stands in for the orchestrator only in tests of the loop itself;
the end-to-end tests (test_e2e.py) use the real orchestrator, rules and sandbox."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from shellgate.agent.runner import CommandRequest, CommandResult, OnOutput, Outcome


@dataclass
class ScriptedRunner:
    """Answers each command with a scripted result; records what it was asked to run."""

    results: dict[str, CommandResult] = field(default_factory=dict)
    seen: list[CommandRequest] = field(default_factory=list)
    hang: bool = False

    async def run(self, request: CommandRequest, on_output: OnOutput) -> CommandResult:
        self.seen.append(request)
        if self.hang:
            await asyncio.sleep(3600)
        result = self.results.get(request.command)
        if result is None:
            result = CommandResult(Outcome.RAN, 0, f"ran {request.command}\n", 0.01)
        if result.output:
            on_output(result.output)
        return result
