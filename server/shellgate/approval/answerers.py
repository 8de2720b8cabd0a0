"""Who answers before the person: one stage of the approval seam, in Codex's order
(../shared/spec/codex-hooks-chain.md §1, auto-review.md §3):

    PreToolUse hooks (may refuse; may rewrite what the rules then judge)
    -> rules and policy -> a question is needed
    -> PermissionRequest hooks -> the reviewer (auto_review) -> the person
    -> the run -> PostToolUse hooks (may replace what the model reads)

Every front end calls `AnswerStage` and never an answerer by name: `before` (PreToolUse),
`ask` (a question), `after` (PostToolUse). Each answer says who gave it (`AnsweredBy`), so the
dialog, the history, the record and the telemetry read the same value.

One deliberate difference from Codex: where Codex fails open (a hook that exits 1, prints bad
JSON, times out, or denies without a reason), ShellGate asks the person instead (`ToPerson`).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from shellgate.approval.context import ApprovalPolicy, ApprovalPolicyKind
from shellgate.approval.question import (
    TIMED_OUT,
    Answer,
    ApprovalRequest,
    Approver,
    ask_with_timeout,
    refusal,
)
from shellgate.approval.requirement import ExecApprovalRequirement, Forbidden, NeedsApproval
from shellgate.rules.shlex_rs import join


class AnsweredBy(enum.Enum):
    """Who decided whether a command runs."""

    RULES = "rules"  # no question: the rules and the policy decided
    HOOK = "hook"  # a Codex hook (PreToolUse refused it, PermissionRequest answered)
    REVIEWER = "reviewer"  # the auto-reviewer model (approvals_reviewer = "auto_review")
    PERSON = "person"  # the terminal, the editor's dialog, an elicitation


@dataclass(frozen=True)
class Answered:
    """An answer to a question and who gave it."""

    answer: Answer
    by: AnsweredBy
    source: str | None = None  # which hook (its file and position) or which reviewer model
    said: str | None = None  # what the model is told when it does not run (Codex's words)

    @property
    def refusal(self) -> str:
        """Why the command did not run, for the caller's result."""
        return self.said if self.said is not None else refusal(self.answer)


@dataclass(frozen=True)
class ToPerson:
    """An answerer could not answer and Codex would have gone on as if it had not been asked
    (fail open): ShellGate puts the question to the person instead, saying why."""

    why: str


class Answerer(Protocol):
    """One answerer between the rules and the person. None: it has nothing to say, the next
    one is asked."""

    async def answer(self, request: ApprovalRequest) -> Answered | ToPerson | None: ...


@dataclass(frozen=True)
class HookNote:
    """One hook run as a trace shows it (Codex's `hook/completed`)."""

    event: str  # PreToolUse, PermissionRequest, PostToolUse
    source: str  # "user" or "system" (the admin's requirements.toml)
    path: str  # the declaring file
    command: str
    status: str  # completed, blocked, failed, stopped
    text: str | None = None  # the feedback, the error or the context
    duration_ms: int = 0


@dataclass(frozen=True)
class Before:
    """What the PreToolUse hooks made of a command."""

    blocked: str | None = None  # the reason of the first declared hook that refused it
    command: str | None = None  # the rewritten command (`updatedInput` with `allow`)
    ask: str | None = None  # a hook failed (Codex fails open): ask the person, saying why
    context: tuple[str, ...] = ()  # additionalContext for the model's next request
    runs: tuple[HookNote, ...] = ()

    def told(self, command: str) -> str:
        """What the model reads when a hook refused the command (Codex's words)."""
        return f"Command blocked by PreToolUse hook: {self.blocked}. Command: {command}"


@dataclass(frozen=True)
class After:
    """What the PostToolUse hooks made of a command's output."""

    output: str | None = None  # the text the model reads instead of the output
    context: tuple[str, ...] = ()
    runs: tuple[HookNote, ...] = ()


class CommandHooks(Protocol):
    """Codex's hooks of one session, around one shell command (PreToolUse, PostToolUse).
    PermissionRequest hooks are an `Answerer`."""

    async def pre_tool_use(self, command: str, cwd: str, call_id: str) -> Before: ...

    async def post_tool_use(
        self, command: str, cwd: str, call_id: str, output: str
    ) -> After: ...


def hook_failed(
    requirement: ExecApprovalRequirement, why: str, policy: ApprovalPolicy
) -> ExecApprovalRequirement:
    """A PreToolUse hook failed: Codex runs the command as if it had not answered; ShellGate
    asks the person, once and without an amendment (or refuses it where nobody may be asked)."""
    if isinstance(requirement, Forbidden):
        return requirement
    if policy.kind is ApprovalPolicyKind.NEVER:
        return Forbidden(f"{why}; approval policy is never, so it is not run")
    if isinstance(requirement, NeedsApproval):
        return replace(requirement, reason=f"{requirement.reason or why} ({why})", one_shot=True)
    return NeedsApproval(why, None, one_shot=True)


def reviews(policy: ApprovalPolicy) -> bool:
    """Does a question go to the reviewer under this policy? Only under on-request and
    granular (Codex's `routes_approval_to_guardian`); untrusted asks the person; never asks
    nobody. A forbidden command or one the policy refuses is never asked at all."""
    return policy.kind in (ApprovalPolicyKind.ON_REQUEST, ApprovalPolicyKind.GRANULAR)


@dataclass
class AnswerStage:
    """The answerers in Codex's order, then the person. An `Approver` too, so a front end
    that only knows approvers can be handed the stage."""

    person: Approver
    answerers: tuple[Answerer, ...] = ()
    hooks: CommandHooks | None = None
    history: list[Answered] = field(default_factory=list)  # every answer, for a session's log

    async def before(self, command: str, cwd: str, call_id: str) -> Before:
        if self.hooks is None:
            return Before()
        return await self.hooks.pre_tool_use(command, cwd, call_id)

    async def after(self, command: str, cwd: str, call_id: str, output: str) -> After:
        if self.hooks is None:
            return After()
        return await self.hooks.post_tool_use(command, cwd, call_id, output)

    async def ask(
        self, request: ApprovalRequest, timeout: float | None, *, person_only: str | None = None
    ) -> Answered:
        """The first answerer with an answer, else the person (within `timeout`; unanswered is
        a no). `person_only`: why only a person may answer (a hook failed); an admin's
        `prompt-user` rule among the matched rules is answered by a person only too."""
        why = person_only
        if why is None and any(m.person_only for m in request.matched_rules):
            why = PROMPT_USER
        if why is None:
            for answerer in self.answerers:
                found = await answerer.answer(request)
                if isinstance(found, Answered):
                    self.history.append(found)
                    return found
                if isinstance(found, ToPerson):
                    why = found.why
                    break
        if why is not None:
            request = _noted(request, why)
        answer = await ask_with_timeout(self.person, request, timeout)
        answered = Answered(answer, AnsweredBy.PERSON)
        if answer == TIMED_OUT:
            answered = Answered(answer, AnsweredBy.PERSON, said=refusal(answer))
        self.history.append(answered)
        return answered

    async def request_approval(self, request: ApprovalRequest) -> Answer:
        return (await self.ask(request, None)).answer


# Why a question skips Codex's hooks and the reviewer (spec managed-tier: prompt-user).
PROMPT_USER = ("the admin's `prompt-user` rule (requirements.toml) is answered by a person only: "
               "no Codex hook and no reviewer may approve it")  # fmt: skip


def _noted(request: ApprovalRequest, why: str) -> ApprovalRequest:
    return replace(request, notes=(*request.notes, why))


def shell_script(command: Sequence[str]) -> str:
    """The command as a hook reads it (Codex's `tool_input.command`): the script of
    `bash -lc SCRIPT`, else the words joined as a shell line."""
    if len(command) == 3 and command[1] in ("-lc", "-c") and os.path.basename(
            command[0]) in ("bash", "sh", "zsh"):  # fmt: skip
        return command[2]
    return join(list(command))


def rewritten(command: tuple[str, ...], script: str) -> tuple[str, ...]:
    """A PreToolUse hook's `updatedInput.command` in place of the command: the same shell."""
    if len(command) == 3 and command[1] in ("-lc", "-c"):
        return (command[0], command[1], script)
    return ("bash", "-lc", script)
