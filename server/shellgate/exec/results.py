"""What goes into the orchestrator and what comes out: the request, each attempt, the result
and who decided it."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from shellgate.approval.answerers import AnsweredBy
from shellgate.approval.context import SandboxPermissions
from shellgate.exec.denial import Outcome


class Status(enum.Enum):
    COMPLETED = "completed"  # it ran (whatever its exit code, denied by the sandbox or not)
    FORBIDDEN = "forbidden"  # the policy refused it: never ran
    DENIED = "denied"  # the user said no, or did not answer in time
    ABORTED = "aborted"  # the user said stop: the caller's turn ends
    SANDBOX_ERROR = "sandbox-error"  # the sandbox could not be set up


@dataclass(frozen=True)
class ExecRequest:
    command: tuple[str, ...]
    cwd: str
    sandbox_permissions: SandboxPermissions = SandboxPermissions.USE_DEFAULT
    justification: str | None = None
    prefix_rule: tuple[str, ...] | None = None
    timeout: float | None = None  # the command's; None = the orchestrator's default
    env: Mapping[str, str] | None = None
    stdin: bytes | None = None


@dataclass(frozen=True)
class AttemptInfo:
    sandboxed: bool
    outcome: Outcome
    exit_code: int | None
    permission: str  # "sandbox", "sandbox + writable /x", "sandbox + host h", "no sandbox"
    duration_ms: int = 0


@dataclass(frozen=True)
class ExecResult:
    status: Status
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    reason: str | None = None
    attempts: tuple[AttemptInfo, ...] = ()
    notes: tuple[str, ...] = ()
    answered_by: AnsweredBy = AnsweredBy.RULES  # who decided (the last question's answerer)
    replaced_output: str | None = None  # a PostToolUse hook's text, read instead of the output
    context: tuple[str, ...] = ()  # the hooks' additionalContext for the model's next request

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def for_model(self) -> str:
        """What the model reads of the output (a PostToolUse hook may have replaced it)."""
        return self.output if self.replaced_output is None else self.replaced_output


Event = Mapping[str, object]
