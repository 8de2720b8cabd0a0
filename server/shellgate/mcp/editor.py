"""The editor's dialog, through the broker (`shellgate.broker.client`): the one seam between the
MCP face and the language server. `ask` returns None when no ShellGate editor serves the folder:
the caller falls back, it never treats that as a yes. The broker client never raises.
`cancellable` runs either in a thread so that a cancelled MCP call withdraws its question.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from shellgate.approval.question import Answer, ApprovalRequest, RequestKind
from shellgate.approval.review import ReviewDecision
from shellgate.broker import client
from shellgate.broker.protocol import AgentAnswer, AgentDecision, AgentRequest

T = TypeVar("T")


async def cancellable(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs, cancel=event)` in a thread. A thread cannot be cancelled: when the
    call awaiting it is (the MCP client gave up), the event makes the broker client hang up,
    and the editor closes the question then, not at its timeout minutes later."""
    cancel = threading.Event()
    try:
        return await asyncio.to_thread(fn, *args, cancel=cancel, **kwargs)
    except asyncio.CancelledError:
        cancel.set()
        raise


def available(cwd: str) -> bool:
    return client.find_server(cwd) is not None


def ask_raw(
    request: AgentRequest, decision: AgentDecision, *, timeout: float,
    cancel: threading.Event | None = None,
) -> AgentAnswer | None:  # fmt: skip
    """The person's answer in the editor, or None when no editor is reachable."""
    if client.find_server(request.cwd) is None:
        return None
    return client.ask(request, decision, timeout=timeout, cancel=cancel)


def decision_of(question: ApprovalRequest) -> AgentDecision:
    """The orchestrator's decision, as its question holds it, for the editor to show."""
    offers_amendment = any(
        c.decision is ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT for c in question.choices
    )
    return AgentDecision(
        decision="prompt", requirement="needs_approval", reason=question.reason,
        explain=None if question.explain is None else dict(question.explain),
        amendment=question.proposed_amendment if offers_amendment else None, hidden=False,
        matched=question.matched_rules, notes=question.notes)  # fmt: skip


def _script(argv: Sequence[str]) -> str | tuple[str, ...]:
    """`bash -lc SCRIPT` as the script (the broker runs a string as `bash -lc`), else the argv."""
    if len(argv) == 3 and argv[1] == "-lc" and argv[0].rsplit("/", 1)[-1] == "bash":
        return argv[2]
    return tuple(argv)


def ask(
    request: ApprovalRequest, *, cwd: str, agent: str, session_id: str, approval_policy: str,
    sandbox: str, timeout: float, cancel: threading.Event | None = None,
) -> tuple[Answer, str | None] | None:  # fmt: skip
    """One orchestrator question answered in the editor (with the person's words), or None."""
    escalation = request.kind is RequestKind.ESCALATION
    asked = AgentRequest(
        agent=agent, session_id=session_id, cwd=cwd, command=_script(request.command),
        justification=request.reason, approval_policy=approval_policy, sandbox=sandbox,
        sandbox_permissions="require_escalated" if escalation else "use_default")  # fmt: skip
    answer = ask_raw(asked, decision_of(request), timeout=timeout, cancel=cancel)
    if answer is None:
        return None
    decision = ReviewDecision.from_wire(answer.answer) or ReviewDecision.DENIED
    if decision.approves and request.choice(decision.value) is None:
        # An answer this question did not offer (e.g. "don't ask again" for a one-off): the
        # plain yes, never more than was offered.
        decision = ReviewDecision.APPROVED
    return Answer(decision), answer.message
