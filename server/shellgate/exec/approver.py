"""What an approver is asked and what it answers, and the approvers that need no person.

Every front end (terminal, editor, tests) implements `Approver.request_approval`. A request
carries everything a person needs to decide: the command, cwd, reason, the rules that matched,
the proposed amendment spelt out, and the choices on offer.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from shellgate.approval.review import ReviewDecision

if TYPE_CHECKING:
    from shellgate.replay.ladder import Rung


class RequestKind(enum.Enum):
    EXEC = "exec"  # before the first attempt
    ESCALATION = "escalation"  # the sandbox denied it: retry with more permission?
    NETWORK = "network"  # the proxy blocked a host
    PATCH = "patch"


class NetworkAction(enum.Enum):
    ALLOW = "allow"
    DENY = "deny"


@dataclass(frozen=True)
class Choice:
    decision: ReviewDecision
    label: str  # Codex's overlay wording (C.9)
    key: str  # its shortcut key
    network_action: NetworkAction | None = None

    @property
    def id(self) -> str:
        """A stable name for protocols: the decision, plus the network action when there is one."""
        if self.network_action is None:
            return self.decision.value
        return f"{self.decision.value}:{self.network_action.value}"


@dataclass(frozen=True)
class MatchedRule:
    decision: str
    prefix: tuple[str, ...]  # the matched tokens, or the whole command for a heuristic match
    source: str | None  # "path:line:column", None for heuristics
    justification: str | None = None
    heuristic: bool = False
    layer: str | None = None  # the rule's tier: system, user, project, cli, requirements


@dataclass(frozen=True)
class ApprovalRequest:
    id: str
    kind: RequestKind
    command: tuple[str, ...]
    cwd: str
    reason: str | None
    choices: tuple[Choice, ...]
    matched_rules: tuple[MatchedRule, ...] = ()
    proposed_amendment: tuple[str, ...] | None = None
    amendment_text: str | None = None  # the rule line that would be appended, spelt out
    host: str | None = None  # NETWORK: the blocked host
    retry_permission: str | None = None  # ESCALATION: what the retry would get
    notes: tuple[str, ...] = ()  # e.g. why the sandbox is unavailable
    agent: str | None = None  # an outside agent asking through the broker ("claude-code")
    explain: Mapping[str, Any] | None = None  # its explain trace (explain.schema.json)
    # "Don't ask again" candidates, narrow to broad (shellgate.replay.ladder), computed only
    # when the person picks that choice: they read the user's histories.
    ladder: Callable[[], Sequence[Rung]] | None = None

    @property
    def title(self) -> str:
        if self.agent is not None and self.kind is RequestKind.EXEC:
            from shellgate.broker.protocol import display_name

            return f"{display_name(self.agent)} wants to run the following command"
        if self.kind is RequestKind.NETWORK:
            return f'Do you want to approve network access to "{self.host}"?'
        if self.kind is RequestKind.PATCH:
            return "Would you like to make the following edits?"
        return "Would you like to run the following command?"

    def choice(self, choice_id: str) -> Choice | None:
        return next((c for c in self.choices if c.id == choice_id), None)


@dataclass(frozen=True)
class Answer:
    decision: ReviewDecision
    network_action: NetworkAction | None = None
    message: str | None = None  # the person's words, when the front end takes them
    rung: Rung | None = None  # the ladder's rule picked for "don't ask again" (None: Codex's)

    @classmethod
    def of(cls, choice: Choice, message: str | None = None) -> Answer:
        return cls(choice.decision, choice.network_action, message)


TIMED_OUT = Answer(ReviewDecision.TIMED_OUT)


class Approver(Protocol):
    async def request_approval(self, request: ApprovalRequest) -> Answer: ...


_ids = itertools.count(1)


def next_request_id() -> str:
    return f"approval-{next(_ids)}"


def _strip_bash_lc(prefix: Sequence[str]) -> str:
    from shellgate.rules.shlex_rs import join

    words = list(prefix)
    if (
        len(words) == 3
        and words[1] in ("-lc", "-c")
        and words[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")
    ):
        return words[2]
    return join(words)


def exec_choices(
    decisions: Iterable[ReviewDecision], amendment: Sequence[str] | None
) -> tuple[Choice, ...]:
    """Codex's overlay options for a command, in its order, for the offered decisions."""
    offered = set(decisions)
    out: list[Choice] = []
    if ReviewDecision.APPROVED in offered:
        out.append(Choice(ReviewDecision.APPROVED, "Yes, proceed", "y"))
    if ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT in offered and amendment:
        shown = _strip_bash_lc(amendment)
        if "\n" not in shown:  # Codex hides the option rather than show a multi-line prefix
            out.append(
                Choice(
                    ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT,
                    f"Yes, and don't ask again for commands that start with `{shown}`",
                    "p",
                )
            )
    if ReviewDecision.APPROVED_FOR_SESSION in offered:
        out.append(
            Choice(
                ReviewDecision.APPROVED_FOR_SESSION,
                "Yes, and don't ask again for this command in this session",
                "a",
            )
        )
    if ReviewDecision.DENIED in offered:
        out.append(Choice(ReviewDecision.DENIED, "No, continue without running it", "d"))
    if ReviewDecision.ABORT in offered:
        out.append(Choice(ReviewDecision.ABORT, "No, and tell Codex what to do differently", "n"))
    return tuple(out)


def network_choices() -> tuple[Choice, ...]:
    return (
        Choice(ReviewDecision.APPROVED, "Yes, just this once", "y"),
        Choice(
            ReviewDecision.APPROVED_FOR_SESSION,
            "Yes, and allow this host for this conversation",
            "a",
        ),
        Choice(
            ReviewDecision.NETWORK_POLICY_AMENDMENT,
            "Yes, and allow this host in the future",
            "p",
            NetworkAction.ALLOW,
        ),
        Choice(
            ReviewDecision.NETWORK_POLICY_AMENDMENT,
            "No, and block this host in the future",
            "d",
            NetworkAction.DENY,
        ),
        Choice(ReviewDecision.ABORT, "No, and tell Codex what to do differently", "n"),
    )


def patch_choices() -> tuple[Choice, ...]:
    return (
        Choice(ReviewDecision.APPROVED, "Yes, proceed", "y"),
        Choice(
            ReviewDecision.APPROVED_FOR_SESSION, "Yes, and don't ask again for these files", "a"
        ),
        Choice(ReviewDecision.ABORT, "No, and tell Codex what to do differently", "n"),
    )


@dataclass
class AutomaticApprover:
    """No person: answers from a script (tests) or always the same (`never`: denies).

    `script` maps a request to a choice id (or an Answer); `None` falls back to `default`.
    Every request is recorded, so tests can check what was asked.
    """

    default: ReviewDecision = ReviewDecision.DENIED
    script: Callable[[ApprovalRequest], str | Answer | None] | None = None
    delay: float = 0.0
    asked: list[ApprovalRequest] = field(default_factory=list)

    async def request_approval(self, request: ApprovalRequest) -> Answer:
        self.asked.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        picked = self.script(request) if self.script else None
        if isinstance(picked, Answer):
            return picked
        if isinstance(picked, str):
            choice = request.choice(picked)
            if choice is None:
                raise ValueError(
                    f"{picked!r} is not one of the offered choices "
                    f"{[c.id for c in request.choices]}"
                )
            return Answer.of(choice)
        return Answer(self.default)


async def ask_with_timeout(
    approver: Approver, request: ApprovalRequest, timeout: float | None
) -> Answer:
    """An unanswered request counts as denied (TIMED_OUT): the command does not run."""
    try:
        return await asyncio.wait_for(approver.request_approval(request), timeout)
    except TimeoutError:
        return TIMED_OUT
