"""Who answers the orchestrator's questions for an MCP call, in order: the editor through the
broker (the dialog with the trace); else the MCP client, by elicitation; else nobody, and the
question counts as "no" with the reason said. A declined or cancelled elicitation is a refusal.

Elicitation has two transports. Up to protocol 2025-11-25 the server sends `elicitation/create`
in the middle of the call, so any question (first approval, escalation, network) can be asked
when it arises. From 2026-07-28 a call cannot send requests: the question rides an
`InputRequiredResult` and the client calls again with the answer, so it must be known before
anything runs. `predict_question` works out the first question from the rules (what the
orchestrator will ask), the SDK's resolver asks it, and `ElicitingApprover` hands the answer to
the orchestrator only if it asks exactly that; any other question is refused, never guessed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from shellgate.approval.beyond import gate_requirement
from shellgate.approval.cache import ApprovalStore, shell_approval_key
from shellgate.approval.context import ExecContext
from shellgate.approval.question import (
    Answer,
    ApprovalRequest,
    Choice,
    RequestKind,
    _strip_bash_lc,
    exec_question,
)
from shellgate.approval.requirement import NeedsApproval
from shellgate.approval.review import ReviewDecision
from shellgate.mcp import editor
from shellgate.mcp.call import ShellCall
from shellgate.rules.policy import Policy
from shellgate.untrusted import escape_one_line

ASKER = "the agent"  # the MCP client's model reads the person's words

NOBODY = (
    "nobody could be asked (no ShellGate editor is open for this folder and the MCP client "
    "does not support elicitation): refused"
)


@dataclass(frozen=True)
class Question:
    """What a person is shown: the title, the command, the reason, the choices by label."""

    message: str
    labels: tuple[str, ...]

    @classmethod
    def of(cls, request: ApprovalRequest) -> Question:
        return cls(_message(request.title, request.command, request.reason, request.notes),
                   tuple(c.label for c in request.choices))  # fmt: skip

    def schema(self) -> dict[str, Any]:
        """The form: one required enum. No top-level `title`: Codex rejects a schema with one
        (`unknown field 'title'`) and cancels the elicitation."""
        return {
            "type": "object",
            "properties": {"decision": {"type": "string", "enum": list(self.labels),
                                        "description": "your answer"}},
            "required": ["decision"],
        }  # fmt: skip

    def model(self) -> type[BaseModel]:
        """The same form as a model, for the SDK's resolver (protocol 2026-07-28)."""
        choice = Literal[self.labels]  # type: ignore[name-defined]
        return create_model(
            "ShellGateApproval",
            __config__=ConfigDict(json_schema_extra=_drop_title),
            decision=(choice, Field(description="your answer")),
        )


def _drop_title(schema: dict[str, Any]) -> None:
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)


def _message(title: str, command: Sequence[str], reason: str | None,
             notes: Sequence[str] = ()) -> str:  # fmt: skip

    lines = [f"ShellGate: {title}", f"$ {escape_one_line(_strip_bash_lc(command))}"]
    if reason:
        lines.append(f"Reason: {escape_one_line(reason)}")
    lines += [escape_one_line(n) for n in notes]
    return "\n".join(lines)


def predict_question(
    call: ShellCall, context: ExecContext, policy: Policy, store: ApprovalStore
) -> Question | None:
    """The orchestrator's first question for `call`, worked out as it does, or None."""
    ctx = replace(context, sandbox_permissions=call.permissions,
                  justification=call.justification)  # fmt: skip
    from shellgate.shell.programs.git_files import git_files  # deferred: git's readers

    git = git_files(call.workdir, os.environ) if call.workdir else None  # read if git runs
    requirement = gate_requirement(list(call.argv), ctx, policy, git)  # what bash runs, too
    if not isinstance(requirement, NeedsApproval):
        return None
    if store.lookup([shell_approval_key(list(call.argv), call.workdir, call.permissions)]):
        return None
    asked = exec_question(tuple(call.argv), call.workdir, requirement, (), asker=ASKER)
    return Question(_message(asked.title, call.argv, asked.reason),
                    tuple(c.label for c in asked.choices))  # fmt: skip


def _by_label(request: ApprovalRequest, label: object) -> Choice | None:
    return next((c for c in request.choices if c.label == label), None)


def _no(request: ApprovalRequest, action: str) -> Answer:
    """A declined form is "no"; a cancelled one is "no, and stop" where that is offered."""
    offered = {c.decision for c in request.choices if c.network_action is None}
    if action == "cancel" and ReviewDecision.ABORT in offered:
        return Answer(ReviewDecision.ABORT)
    if ReviewDecision.DENIED in offered:
        return Answer(ReviewDecision.DENIED)
    return Answer(ReviewDecision.ABORT)


Elicit = Callable[[str, dict[str, Any]], Any]  # (message, schema) -> awaitable ElicitResult


@dataclass
class CallApprover:
    """The orchestrator's Approver for one `shell` call."""

    cwd: str
    agent: str = "mcp"
    session_id: str = ""
    approval_policy: str = "on-request"
    sandbox: str = "workspace-write"
    elicit: Elicit | None = None  # the legacy transport: ask in the middle of the call
    answered: tuple[Question, Any] | None = None  # the modern transport: (question, outcome)
    modern: bool = False
    use_editor: bool = True
    editor_timeout: float = 300.0
    refusals: list[str] = field(default_factory=list)  # why a question got no person's answer
    answered_by: list[str] = field(default_factory=list)

    async def request_approval(self, request: ApprovalRequest) -> Answer:
        if self.use_editor:
            answer = await editor.cancellable(
                editor.ask, request, cwd=self.cwd, agent=self.agent, session_id=self.session_id,
                approval_policy=self.approval_policy, sandbox=self.sandbox,
                timeout=self.editor_timeout)  # fmt: skip
            if answer is not None:
                self.answered_by.append("editor")
                reply, message = answer
                if not reply.decision.approves:
                    self.refusals.append(
                        f"the user answered in the editor: {message or reply.decision.value}")
                return reply
        if self.elicit is not None:
            return await self._elicit_now(request, self.elicit)
        if self.answered is not None:
            return self._from_resolver(request, *self.answered)
        if self.modern:
            self.refusals.append(
                "this MCP client (protocol 2026-07-28) cannot be asked in the middle of a "
                f"command, and no ShellGate editor is open: {request.kind.value} question "
                "refused" + (
                    '; to run it unsandboxed, call again with sandbox_permissions '
                    '"require_escalated" and a justification'
                    if request.kind is RequestKind.ESCALATION else ""))  # fmt: skip
        else:
            self.refusals.append(NOBODY)
        return Answer(ReviewDecision.DENIED)

    async def _elicit_now(self, request: ApprovalRequest, elicit: Elicit) -> Answer:
        question = Question.of(request)
        try:
            result = await elicit(question.message, question.schema())
        except Exception as exc:
            self.refusals.append(f"the MCP client could not be asked ({exc}): refused")
            return Answer(ReviewDecision.DENIED)
        return self._outcome(request, result.action, (result.content or {}).get("decision"))

    def _from_resolver(self, request: ApprovalRequest, asked: Question, outcome: Any) -> Answer:
        if Question.of(request) != asked:
            # Not the question the user answered (the sandbox turned out unavailable, a
            # different rule matched by now): never reuse an answer for another question.
            self.refusals.append(
                "ShellGate had to ask a different question than the one answered (" +
                escape_one_line(request.reason or request.kind.value) + "): refused")
            return Answer(ReviewDecision.DENIED)
        self.answered = None  # one answer, one question
        data = getattr(outcome, "data", None)
        return self._outcome(request, getattr(outcome, "action", "cancel"),
                             getattr(data, "decision", None))  # fmt: skip

    def _outcome(self, request: ApprovalRequest, action: str, label: object) -> Answer:
        self.answered_by.append("elicitation")
        if action == "accept":
            choice = _by_label(request, label)
            if choice is not None:
                return Answer.of(choice)
            self.refusals.append(f"the MCP client answered {label!r}, not one of the choices")
            return _no(request, "decline")
        self.refusals.append(f"the MCP client's user answered {action}: not run")
        return _no(request, action)
