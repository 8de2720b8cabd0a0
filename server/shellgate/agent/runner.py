"""The narrow interface between the loop and whatever runs commands (the orchestrator).

Every tool call goes through a `CommandRunner`; the loop never starts a process itself.
Cancelling the awaiting task must kill the command's whole process group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class Outcome(StrEnum):
    RAN = "ran"  # it ran (any exit code)
    DECLINED = "declined"  # the user said no, continue without it
    FORBIDDEN = "forbidden"  # rules or policy refused it; never asked, never run
    ABORTED = "aborted"  # "No, and tell the agent what to do differently": ends the turn
    FAILED = "failed"  # could not be started (sandbox unavailable, bad workdir, ...)


@dataclass(frozen=True)
class CommandRequest:
    command: str  # run as `bash -lc <command>`
    workdir: str  # absolute
    justification: str | None = None  # untrusted model text
    prefix_rule: tuple[str, ...] | None = None  # untrusted model proposal
    escalated: bool = False  # sandbox_permissions == require_escalated
    timeout_ms: int | None = None
    item_id: str = ""


@dataclass(frozen=True)
class CommandResult:
    outcome: Outcome
    exit_code: int | None = None
    output: str = ""
    duration_s: float = 0.0
    reason: str | None = None  # forbidden/failed: the message the model reads
    decision: str | None = None  # the approval decision, when one was asked
    sandboxed: bool | None = None
    context: tuple[str, ...] = ()  # Codex hooks' additionalContext for the next model request


OnOutput = Callable[[str], None]


class CommandRunner(Protocol):
    async def run(self, request: CommandRequest, on_output: OnOutput) -> CommandResult: ...
