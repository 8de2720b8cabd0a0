"""One `shell` call: the rules Codex would load from disk for the workspace, the orchestrator
(exactly as the embedded agent's commands go), progress while it runs, and what the model reads.

Rules are read again for every call (through the on-disk layer cache), so an amendment written by
the editor, or a rule the user just added, decides the next call. A broken rules file refuses
every command with the file, line and column: never an empty policy that would let commands by.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shellgate.agent.tool import format_ran
from shellgate.answer.stage import answer_stage, configured_review, reviewer_for
from shellgate.approval.cache import ApprovalStore
from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import REJECTED_BY_USER, ApprovalRequest, Approver
from shellgate.broker.client import reviewed as tell_editor
from shellgate.broker.desk import as_agent
from shellgate.codexconfig.layer_cache import load_layers_cached
from shellgate.codexconfig.resolve import codex_layers_for, managed_context
from shellgate.exec.denial import Outcome
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.probe import SandboxProbe
from shellgate.exec.results import ExecRequest, ExecResult, Status
from shellgate.mcp.approvers import ASKER
from shellgate.mcp.call import ShellCall
from shellgate.rules.errors import RulesError
from shellgate.rules.policy import Policy

MAX_OUTPUT_BYTES = 64 * 1024  # what the model reads of one command's output (head and tail)
PROGRESS_EVERY = 1.0  # seconds between progress notifications while a command runs

Progress = Callable[[float, str], Awaitable[None]]


@dataclass
class McpSession:
    """What one `shellgate mcp` process keeps across calls."""

    workspace: str
    codex_home: Path
    approval_policy: ApprovalPolicy = field(
        default_factory=lambda: ApprovalPolicy.parse("on-request"))
    sandbox: SandboxMode = SandboxMode.WORKSPACE_WRITE
    extra_rules: tuple[str, ...] = ()
    approval_timeout: float = 300.0
    store: ApprovalStore = field(default_factory=ApprovalStore)  # "don't ask again this session"
    probe: SandboxProbe | None = None
    # Off by default: Codex and Claude Code show the model the structured copy (as JSON) instead
    # of the text when there is one; the text is what a model reads best.
    structured: bool = False
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    # Codex's auto-reviewer when Codex's config turns it on: one conversation per session
    reviewer: Any = field(default=None, repr=False)
    _reviewer_read: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        self.workspace = os.path.realpath(self.workspace)

    @property
    def context(self) -> ExecContext:
        """The session's context after the admin's requirements (Codex's fallback)."""
        return managed_context(self.approval_policy, self.sandbox)

    def policy(self) -> Policy:
        """The rules Codex would load for a session in the workspace; RulesError when broken."""
        return load_layers_cached(self.layers())

    def layers(self) -> tuple[Any, ...]:
        layers, _trust = codex_layers_for(Path(self.workspace), codex_home=self.codex_home,
                                          extra_rules=self.extra_rules)  # fmt: skip
        return layers

    async def run(self, call: ShellCall, approver: Approver, progress: Progress | None = None,
                  policy: Policy | None = None) -> ExecResult:  # fmt: skip
        if policy is None:
            try:
                policy = self.policy()
            except RulesError as exc:
                return ExecResult(Status.FORBIDDEN, reason=f"the rules cannot be read, so "
                                  f"nothing runs: {exc}")  # fmt: skip
        context = self.context
        try:  # Codex's hooks (the admin's and the user's trusted ones), the reviewer, the person
            if not self._reviewer_read:
                review = configured_review(self.workspace, self.codex_home)
                self.reviewer = reviewer_for(review, context.approval_policy,
                                             session_id=self.session_id,
                                             sandbox=context.sandbox.value,
                                             on_verdict=self._tell_editor)  # fmt: skip
                self._reviewer_read = True
            stage = answer_stage(approver, codex_home=self.codex_home, cwd=self.workspace,
                                 approval=context.approval_policy,
                                 reviewer=self.reviewer)  # fmt: skip
        except RulesError as exc:
            return ExecResult(Status.FORBIDDEN, reason=f"Codex's configuration cannot be read, "
                              f"so nothing runs: {exc}")  # fmt: skip
        orchestrator = Orchestrator(
            policy, approver, context, codex_home=str(self.codex_home),
            writable_roots=(self.workspace,), approval_timeout=self.approval_timeout,
            probe=self.probe, store=self.store, asker=ASKER, answerers=stage,
            originator="mcp")  # fmt: skip
        request = ExecRequest(
            call.argv, call.workdir, call.permissions, call.justification,
            timeout=call.timeout_ms / 1000 if call.timeout_ms else None)  # fmt: skip
        task = asyncio.ensure_future(orchestrator.run(request))
        try:
            if progress is not None:
                await _tick(task, progress, call.shown)
            result = await task
        finally:
            if not task.done():  # cancelled: the runner kills the process group on the way out
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self.probe = orchestrator.probe
        return result


    def _tell_editor(self, question: ApprovalRequest, review: dict[str, str | None]) -> None:
        """The editor whose workspace holds the cwd lists the reviewer's verdict (Show
        Approvals); best effort, off the event loop, never waited for."""
        request, decision = as_agent(question, "mcp", self.session_id)
        asyncio.get_running_loop().run_in_executor(None, tell_editor, request, decision, review)


async def _tick(task: asyncio.Future[Any], progress: Progress, shown: str) -> None:
    started = time.monotonic()
    while True:
        done, _ = await asyncio.wait({task}, timeout=PROGRESS_EVERY)
        if done:
            return
        elapsed = time.monotonic() - started
        with contextlib.suppress(Exception):  # a client that stopped listening is not an error
            await progress(elapsed, f"running for {elapsed:.0f} s: {shown[:80]}")


def report(call: ShellCall, result: ExecResult, refusals: list[str], duration: float
           ) -> tuple[str, dict[str, Any], bool]:  # fmt: skip
    """(text for the model, structured copy, is_error). A command that ran is never an error,
    whatever its exit code; a refusal is, with the reason (Codex's words) first."""
    last = result.attempts[-1] if result.attempts else None
    structured: dict[str, Any] = {
        "status": result.status.value,
        "exit_code": result.exit_code,
        "output": result.for_model,
        "answered_by": result.answered_by.value,
        "reason": result.reason,
        "sandboxed": last.sandboxed if last else None,
        "permission": last.permission if last else None,
        "attempts": [{"sandboxed": a.sandboxed, "outcome": a.outcome.value,
                      "exit_code": a.exit_code, "permission": a.permission}
                     for a in result.attempts],
        "notes": list(result.notes) + refusals,
        "command": call.shown,
        "workdir": call.workdir,
    }  # fmt: skip
    if result.status is Status.COMPLETED:
        text = format_ran(result.exit_code if result.exit_code is not None else -1, duration,
                          result.for_model, MAX_OUTPUT_BYTES)  # fmt: skip
        if last is not None and last.outcome is Outcome.TIMED_OUT:
            text += "\n(the command timed out and was stopped)"
        elif last is not None and last.outcome.is_denial:
            text += f"\n(the sandbox denied it: {result.reason})"
        return text, structured, False
    if result.status is Status.FORBIDDEN:
        text = result.reason or f"`{call.shown}` rejected: blocked by policy"
    elif result.status in (Status.DENIED, Status.ABORTED) and last is not None:
        # It ran in the sandbox, was denied, and the retry with more permission was refused.
        text = format_ran(result.exit_code if result.exit_code is not None else -1, duration,
                          result.output, MAX_OUTPUT_BYTES)  # fmt: skip
        text += (f"\n(the sandbox denied it; retrying with more permission was refused: "
                 f"{result.reason or REJECTED_BY_USER})")  # fmt: skip
        if refusals:
            text += "\n" + "\n".join(refusals)
    elif result.status in (Status.DENIED, Status.ABORTED):
        why = result.reason or REJECTED_BY_USER
        text = f"{why}: `{call.shown}` was not run"
        if refusals:
            text += "\n" + "\n".join(refusals)
    else:
        text = f"execution error: {result.reason or 'the sandbox could not be set up'}"
    for note in result.notes:
        text += f"\n{note}"
    return text, structured, True
