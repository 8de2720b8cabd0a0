"""Approvals in the editor: the custom request `shellgate/approve` for clients that advertise
it (experimental capability `shellgate: {approve: true}`, or the flat key `shellgate.approve`),
else `window/showMessageRequest` with the same choices as actions.

The message shape is rules-schema/approval.schema.json. Every question is its own JSON-RPC
request, so answers route to their commands however many are pending. A question the client
dismisses is "no"; one left unanswered times out in the orchestrator, also as "no".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from shellgate.approval.review import ReviewDecision
from shellgate.exec.approver import Answer, ApprovalRequest, Choice
from shellgate.exec.terminal import escape_untrusted

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

METHOD = "shellgate/approve"


def client_supports_approve(caps: T.ClientCapabilities | None) -> bool:
    experimental = getattr(caps, "experimental", None) if caps is not None else None
    if not isinstance(experimental, dict):
        return False
    nested = experimental.get("shellgate")
    return experimental.get("shellgate.approve") is True or (
        isinstance(nested, dict) and nested.get("approve") is True
    )


def approval_params(
    request: ApprovalRequest, *, amendments_file: str | None, timeout: float | None
) -> dict[str, Any]:
    """The `shellgate/approve` params (approval.schema.json#/definitions/params)."""
    amendment = None
    if request.amendment_text:
        amendment = {
            "tokens": list(request.proposed_amendment or ()),
            "text": request.amendment_text,
            "path": amendments_file,
            "description": "append this rule, so commands starting with it run without asking",
        }
    return {
        "id": request.id,
        "kind": request.kind.value,
        "title": request.title,
        "command": list(request.command),
        "cwd": request.cwd,
        "reason": request.reason,
        "host": request.host,
        "retryPermission": request.retry_permission,
        "matchedRules": [
            {
                "decision": r.decision,
                "matchedPrefix": list(r.prefix),
                "justification": r.justification,
                "source": r.source,
                "kind": "heuristics" if r.heuristic else "prefix_rule",
            }
            for r in request.matched_rules
        ],
        "amendment": amendment,
        "choices": [{"id": c.id, "label": c.label, "key": c.key} for c in request.choices],
        "notes": list(request.notes),
        "timeoutSeconds": timeout,
        **_agent(request),
    }


def _agent(request: ApprovalRequest) -> dict[str, Any]:
    """An outside agent's question also names the agent and carries its explain trace."""
    if request.agent is None:
        return {}
    from shellgate.broker.protocol import display_name

    return {
        "agent": {"id": request.agent, "name": display_name(request.agent)},
        "explain": dict(request.explain) if request.explain is not None else None,
    }


def _refusal(request: ApprovalRequest) -> Answer:
    """What a dismissed question means: the first "no" on offer."""
    for decision in (ReviewDecision.DENIED, ReviewDecision.ABORT):
        if any(c.decision is decision and c.network_action is None for c in request.choices):
            return Answer(decision)
    return Answer(ReviewDecision.DENIED)


def _message(request: ApprovalRequest) -> str:
    from shellgate.rules.shlex_rs import join

    lines = [f"ShellGate: {request.title}", f"$ {escape_untrusted(join(request.command))}"]
    lines.append(f"in {escape_untrusted(request.cwd)}")
    if request.reason:
        lines.append(f"Reason: {escape_untrusted(request.reason)}")
    for r in request.matched_rules:
        lines.append(f"Rule: {r.decision} `{escape_untrusted(join(r.prefix))}` "
                     f"({r.source or 'heuristics'})")  # fmt: skip
    if request.amendment_text:
        lines.append(f"Would add: {escape_untrusted(request.amendment_text)}")
    lines.extend(f"Note: {escape_untrusted(n)}" for n in request.notes)
    return "\n".join(lines)


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class EditorApprover:
    def __init__(self, server: LanguageServer, *, amendments_file: str | None = None,
                 timeout: float | None = None) -> None:  # fmt: skip
        self.server = server
        self.amendments_file = amendments_file
        self.timeout = timeout

    async def request_approval(self, request: ApprovalRequest) -> Answer:
        if client_supports_approve(self.server.client_capabilities):
            params = approval_params(request, amendments_file=self.amendments_file,
                                     timeout=self.timeout)  # fmt: skip
            result = await self.server.protocol.send_request_async(METHOD, params)
            picked = request.choice(str(_field(result, "choice")))
            words = _field(result, "message")
            message = words if isinstance(words, str) and words.strip() else None
            return Answer.of(picked, message) if picked is not None else _refusal(request)
        return await self._message_request(request)

    async def _message_request(self, request: ApprovalRequest) -> Answer:
        by_title: dict[str, Choice] = {c.label: c for c in request.choices}
        response = await self.server.window_show_message_request_async(
            T.ShowMessageRequestParams(
                type=T.MessageType.Warning,
                message=_message(request),
                actions=[T.MessageActionItem(title=c.label) for c in request.choices],
            )
        )
        title = _field(response, "title") if response is not None else None
        picked = by_title.get(title) if isinstance(title, str) else None
        return Answer.of(picked) if picked is not None else _refusal(request)


def register(server: LanguageServer) -> None:
    """Nothing to listen to: run_command (and any other runner) builds an EditorApprover."""
    server.shellgate_approver_factory = EditorApprover  # type: ignore[attr-defined]
