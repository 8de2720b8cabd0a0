"""The `CommandRunner` every real session uses: each call goes through the orchestrator (rules ->
approval policy -> approver -> bubblewrap sandbox -> escalation), run as `bash -lc <command>`."""

from __future__ import annotations

import os
import shutil
import time

from shellgate.agent.runner import CommandRequest, CommandResult, OnOutput, Outcome
from shellgate.approval.context import SandboxPermissions
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.results import ExecRequest, ExecResult, Status


def login_shell() -> str:
    # Codex resolves the shell to an absolute path (`/bin/bash -lc ...`), and so do we.
    return shutil.which("bash") or "/bin/bash"


_OUTCOMES = {
    Status.COMPLETED: Outcome.RAN,
    Status.FORBIDDEN: Outcome.FORBIDDEN,
    Status.DENIED: Outcome.DECLINED,
    Status.ABORTED: Outcome.ABORTED,
    Status.SANDBOX_ERROR: Outcome.FAILED,
}


class OrchestratedRunner:
    def __init__(self, orchestrator: Orchestrator) -> None:
        self.orchestrator = orchestrator
        self.shell = login_shell()

    async def run(self, request: CommandRequest, on_output: OnOutput) -> CommandResult:
        answered = self.orchestrator.stage.history  # every answer, whoever gave it
        answered.clear()
        if not os.path.isdir(request.workdir):
            return CommandResult(Outcome.FAILED,
                                 reason=f"workdir {request.workdir} is not a directory")
        exec_request = ExecRequest(
            command=(self.shell, "-lc", request.command), cwd=request.workdir,
            sandbox_permissions=(SandboxPermissions.REQUIRE_ESCALATED if request.escalated
                                 else SandboxPermissions.USE_DEFAULT),
            justification=request.justification, prefix_rule=request.prefix_rule,
            timeout=request.timeout_ms / 1000 if request.timeout_ms else None)
        started = time.monotonic()
        result: ExecResult = await self.orchestrator.run(exec_request)
        duration = time.monotonic() - started
        output = result.for_model  # a PostToolUse hook may have replaced it
        if output:
            on_output(output)
        decision = answered[-1].answer.decision.wire if answered else None
        sandboxed = result.attempts[-1].sandboxed if result.attempts else None
        return CommandResult(_OUTCOMES[result.status], result.exit_code, output, duration,
                             result.reason, decision, sandboxed, result.context)
