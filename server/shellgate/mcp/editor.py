"""The editor's dialog, through the broker (`shellgate.broker.client`): the one seam between the
MCP face and the language server. `ask` returns None when no ShellGate editor serves the folder
(or the broker is not in this build): the caller falls back, it never treats that as a yes.
"""

from __future__ import annotations

from typing import Any

from shellgate.approval.review import ReviewDecision
from shellgate.exec.approver import Answer, ApprovalRequest, RequestKind

_ANSWERS = {
    "accept": ReviewDecision.APPROVED,
    "acceptForSession": ReviewDecision.APPROVED_FOR_SESSION,
    "acceptWithExecpolicyAmendment": ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT,
    "decline": ReviewDecision.DENIED,
    "cancel": ReviewDecision.ABORT,
    "timeout": ReviewDecision.TIMED_OUT,
}


def _client() -> Any | None:
    try:
        from shellgate.broker import client
    except ImportError:  # the broker is another face's module; absent means no editor
        return None
    return client


def available(cwd: str) -> bool:
    client = _client()
    return client is not None and client.find_server(cwd) is not None


def ask_raw(
    *, cwd: str, agent: str, session_id: str, command: str | list[str],
    justification: str | None, approval_policy: str, sandbox: str,
    sandbox_permissions: str = "use_default", timeout: float,
) -> Any | None:  # fmt: skip
    """The broker's AgentAnswer, or None when no editor is reachable."""
    client = _client()
    if client is None or client.find_server(cwd) is None:
        return None
    request = client.AgentRequest(
        agent=agent, session_id=session_id, cwd=cwd, command=command,
        justification=justification, approval_policy=approval_policy, sandbox=sandbox,
        sandbox_permissions=sandbox_permissions)  # fmt: skip
    return client.ask(request, timeout=timeout)


def ask(
    request: ApprovalRequest, *, cwd: str, agent: str, session_id: str, approval_policy: str,
    sandbox: str, timeout: float,
) -> Answer | None:  # fmt: skip
    """One orchestrator question answered in the editor, or None (no editor)."""
    escalation = request.kind is RequestKind.ESCALATION
    answer = ask_raw(
        cwd=cwd, agent=agent, session_id=session_id, command=list(request.command),
        justification=request.reason, approval_policy=approval_policy, sandbox=sandbox,
        sandbox_permissions="require_escalated" if escalation else "use_default",
        timeout=timeout)  # fmt: skip
    if answer is None:
        return None
    decision = _ANSWERS.get(getattr(answer, "answer", ""), ReviewDecision.DENIED)
    if request.choice(decision.value) is None and decision.approves:
        # An answer the question did not offer (e.g. "don't ask again" for a one-off): the
        # plain yes, never more than was offered.
        decision = ReviewDecision.APPROVED
    return Answer(decision)
