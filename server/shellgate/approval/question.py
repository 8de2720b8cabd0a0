"""The approval seam: what a person is asked (`ApprovalRequest`: what runs, for whom, why, the
choices), what they answer (`Answer`), and the approvers that need no person.

Every front end (terminal, editor dialog, broker desk, MCP elicitation) implements
`Approver.request_approval`, and every question is built here: a request carries everything a
person needs to decide: the command, cwd, reason, the rules that matched, the proposed amendment
spelt out, and the choices on offer, worded for whoever reads the person's words (`asker`).
What an answer does is `shellgate.approval.amendments` (written) and the caller's flow (run).
"""

from __future__ import annotations

import asyncio
import enum
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from shellgate.approval.matched import MatchedRule
from shellgate.approval.requirement import NeedsApproval
from shellgate.approval.review import ReviewDecision
from shellgate.rules.amend import AmendError, prefix_rule_line
from shellgate.rules.policy import Evaluation, HeuristicsRuleMatch, PrefixRuleMatch
from shellgate.rules.shlex_rs import join

if TYPE_CHECKING:
    from shellgate.approval.amendments import Rung


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
    asker: str | None = None  # its name as people read it ("Claude Code"), for the title
    explain: Mapping[str, Any] | None = None  # its explain trace (explain.schema.json)
    # "Don't ask again" candidates, narrow to broad (shellgate.replay.ladder), computed only
    # when the person picks that choice: they read the user's histories.
    ladder: Callable[[], Sequence[Rung]] | None = None
    # what the agent said about it (`justification`), and whether it asks to leave the sandbox
    # (`require_escalated`): what a hook and the reviewer are shown
    justification: str | None = None
    sandbox_permissions: str = "use_default"

    @property
    def title(self) -> str:
        if self.asker is not None and self.kind is RequestKind.EXEC:
            return f"{self.asker} wants to run the following command"
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
    unanswered: str | None = None  # why nobody answered ("standard input is closed"): a no

    @classmethod
    def of(cls, choice: Choice, message: str | None = None) -> Answer:
        return cls(choice.decision, choice.network_action, message)


TIMED_OUT = Answer(ReviewDecision.TIMED_OUT)


def refusal(answer: Answer) -> str:
    """Why a command did not run, for the caller's result: the person said no, or nobody did."""
    if answer.unanswered is not None:
        return f"{answer.unanswered}: treated as denied"
    if answer.decision is ReviewDecision.TIMED_OUT:
        return "approval timed out: treated as denied"
    return REJECTED_BY_USER


REJECTED_BY_USER = "rejected by user"


def abort_label(asker: str | None) -> str:
    """The last choice: Codex's wording names who reads the person's words next; with nobody
    (`shellgate run`, the editor's Run Command) it just stops."""
    return "No, and stop" if asker is None else f"No, and tell {asker} what to do differently"


def exec_offered(one_shot: bool) -> tuple[ReviewDecision, ...]:
    """What a command's first question offers (Codex's order): a one-shot question (no sandbox
    to run in) only yes or stop, since an amendment would let it run unsandboxed for good."""
    if one_shot:
        return (ReviewDecision.APPROVED, ReviewDecision.ABORT)
    return (
        ReviewDecision.APPROVED,
        ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT,
        ReviewDecision.APPROVED_FOR_SESSION,
        ReviewDecision.DENIED,
        ReviewDecision.ABORT,
    )


class Approver(Protocol):
    async def request_approval(self, request: ApprovalRequest) -> Answer: ...


_ids = itertools.count(1)


def next_request_id() -> str:
    return f"approval-{next(_ids)}"


def _strip_bash_lc(prefix: Sequence[str]) -> str:

    words = list(prefix)
    if (
        len(words) == 3
        and words[1] in ("-lc", "-c")
        and words[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")
    ):
        return words[2]
    return join(words)


def exec_choices(
    decisions: Iterable[ReviewDecision], amendment: Sequence[str] | None, asker: str | None
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
        out.append(Choice(ReviewDecision.ABORT, abort_label(asker), "n"))
    return tuple(out)


def network_choices(asker: str | None) -> tuple[Choice, ...]:
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
        Choice(ReviewDecision.ABORT, abort_label(asker), "n"),
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


# -- the questions the flow asks (Codex's ToolOrchestrator: approval, then escalation) --------
def matched_rules(evaluation: Evaluation) -> tuple[MatchedRule, ...]:
    """The rules (or heuristics) an evaluation matched, as a question shows them."""
    out: list[MatchedRule] = []
    for m in evaluation.matched_rules:
        if isinstance(m, PrefixRuleMatch):
            span = m.rule.span
            src = f"{span.path}:{span.line}:{span.column}" if span else None
            out.append(MatchedRule(m.decision.value, tuple(m.matched_prefix), src, m.justification,
                                   layer=m.rule.layer,
                                   person_only=m.rule.person_only))  # fmt: skip
        elif isinstance(m, HeuristicsRuleMatch):
            out.append(MatchedRule(m.decision.value, tuple(m.command), None, None, True))
    return tuple(out)


def exec_question(
    command: tuple[str, ...], cwd: str, requirement: NeedsApproval,
    matched: tuple[MatchedRule, ...], *, notes: Sequence[str] = (), asker: str | None,
    ladder: Callable[[], Sequence[Rung]] | None = None,
) -> ApprovalRequest:  # fmt: skip
    """Before the first attempt: the rules asked."""
    return run_question(
        command, cwd, requirement.reason, exec_offered(requirement.one_shot),
        requirement.proposed_execpolicy_amendment, matched,
        notes=tuple(n for n in notes if n not in (requirement.reason or "")), asker=asker,
        ladder=ladder)  # fmt: skip


def run_question(
    command: tuple[str, ...], cwd: str, reason: str | None, offered: Iterable[ReviewDecision],
    amendment: tuple[str, ...] | None, matched: tuple[MatchedRule, ...], *,
    notes: Sequence[str] = (), asker: str | None, agent: str | None = None,
    explain: Mapping[str, Any] | None = None, ladder: Callable[[], Sequence[Rung]] | None = None,
    qid: str | None = None,
) -> ApprovalRequest:  # fmt: skip
    """Every question before a command runs, the orchestrator's and an outside agent's (the
    broker's desk): Codex's choices for what is `offered`; the amendment only when its rule
    line is one Codex would load again."""
    text = None
    if amendment:
        try:
            text = prefix_rule_line(amendment)
        except AmendError:
            amendment = None
    return ApprovalRequest(
        qid or next_request_id(), RequestKind.EXEC, command, cwd, reason,
        exec_choices(offered, amendment, asker), matched, amendment, text, notes=tuple(notes),
        agent=agent, asker=asker, explain=explain, ladder=ladder)  # fmt: skip


def escalation_question(
    command: tuple[str, ...], cwd: str, reason: str, roots: Sequence[str], permission: str,
    matched: tuple[MatchedRule, ...], asker: str | None,
) -> ApprovalRequest:  # fmt: skip
    """The sandbox denied it: retry with `roots` writable, or without a sandbox (no roots)."""
    if not roots:
        why = f"{reason}; retry without sandbox?" if "retry" not in reason else reason
    else:
        why = f"{reason}; retry with {', '.join(roots)} writable?"
    offered = (ReviewDecision.APPROVED, ReviewDecision.APPROVED_FOR_SESSION,
               ReviewDecision.DENIED, ReviewDecision.ABORT)  # fmt: skip
    return ApprovalRequest(
        next_request_id(), RequestKind.ESCALATION, command, cwd, why,
        exec_choices(offered, None, asker), matched, retry_permission=permission)  # fmt: skip


def network_question(
    command: tuple[str, ...], cwd: str, host: str, reason: str, asker: str | None
) -> ApprovalRequest:
    """The proxy blocked a host."""
    return ApprovalRequest(
        next_request_id(), RequestKind.NETWORK, command, cwd, reason, network_choices(asker),
        host=host, retry_permission=f"host {host}")  # fmt: skip
