"""Approvals in the editor: the custom request `shellgate/approve` for clients that advertise
it (experimental capability `shellgate: {approve: true}`, or the flat key `shellgate.approve`),
else `window/showMessageRequest` with the same choices as actions.

The message shape is rules-schema/approval.schema.json. Every question is its own JSON-RPC
request, so answers route to their commands however many are pending. A question the client
dismisses is "no"; one left unanswered times out in the orchestrator, also as "no".

A question that is over before the client answers (its asker cancelled it: a timeout, an agent
gone) is withdrawn with `$/cancelRequest`, so the client can close its dialog; an answer that
still arrives for it is not used, and the person is told so (`window/showMessage`).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from shellgate.approval.question import Answer, ApprovalRequest, Choice
from shellgate.approval.review import ReviewDecision
from shellgate.broker.protocol import display_name
from shellgate.rules.shlex_rs import join
from shellgate.untrusted import escape_one_line

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from shellgate.approval.amendments import Rung

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
                "layer": r.layer,
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

    lines = [f"ShellGate: {request.title}", f"$ {escape_one_line(join(request.command))}"]
    lines.append(f"in {escape_one_line(request.cwd)}")
    if request.reason:
        lines.append(f"Reason: {escape_one_line(request.reason)}")
    for r in request.matched_rules:
        lines.append(f"Rule: {r.decision} `{escape_one_line(join(r.prefix))}` "
                     f"({r.source or 'heuristics'})")  # fmt: skip
    if request.amendment_text:
        lines.append(f"Would add: {escape_one_line(request.amendment_text)}")
    lines.extend(f"Note: {escape_one_line(n)}" for n in request.notes)
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
            rungs = await _ladder(request)
            if len(rungs) > 1:
                # deferred: replay.ladder (~12 ms) until the first approval
                from shellgate.replay.ladder import to_json

                params["ladder"] = [to_json(r) for r in rungs]

            def chosen(result: Any) -> Choice | None:
                return request.choice(str(_field(result, "choice")))

            result = await self._send(request, METHOD, params, chosen)
            picked = chosen(result)
            if picked is None:
                return _refusal(request)
            words = _field(result, "message")
            message = words if isinstance(words, str) and words.strip() else None
            return _with_rung(Answer.of(picked, message), rungs, _field(result, "rung"))
        return await self._message_request(request)

    async def _message_request(self, request: ApprovalRequest) -> Answer:
        by_title: dict[str, Choice] = {c.label: c for c in request.choices}

        def pick(response: Any) -> Choice | None:
            title = _field(response, "title") if response is not None else None
            return by_title.get(title) if isinstance(title, str) else None

        params = T.ShowMessageRequestParams(
            type=T.MessageType.Warning,
            message=_message(request),
            actions=[T.MessageActionItem(title=c.label) for c in request.choices],
        )
        picked = pick(await self._send(request, T.WINDOW_SHOW_MESSAGE_REQUEST, params, pick))
        return Answer.of(picked) if picked is not None else _refusal(request)

    async def _send(
        self, request: ApprovalRequest, method: str, params: Any,
        pick: Callable[[Any], Choice | None],
    ) -> Any:  # fmt: skip
        """The client's response; cancelled (the question is over): the client is told."""
        msg_id = str(uuid.uuid4())
        sent = self.server.protocol.send_request(method, params, msg_id=msg_id)
        try:
            return await asyncio.wrap_future(sent)
        except asyncio.CancelledError:
            self._withdraw(msg_id, sent, request, pick)
            raise

    def _withdraw(
        self, msg_id: str, sent: Future[Any], request: ApprovalRequest,
        pick: Callable[[Any], Choice | None],
    ) -> None:  # fmt: skip
        if sent.done() and not sent.cancelled():  # the answer crossed the end of the question
            self._too_late(sent, request, pick)
            return
        protocol = self.server.protocol
        # pygls keeps the cancelled future under its id, and a late response would fail on it:
        # a fresh one takes its place and tells the person their click came too late.
        futures = getattr(protocol, "_request_futures", None)
        if isinstance(futures, dict):
            late: Future[Any] = Future()
            late.add_done_callback(lambda f: self._too_late(f, request, pick))
            futures[msg_id] = late
        with contextlib.suppress(Exception):  # a client gone already has nothing to close
            protocol.notify(T.CANCEL_REQUEST, T.CancelParams(id=msg_id))

    def _too_late(
        self, future: Any, request: ApprovalRequest, pick: Callable[[Any], Choice | None]
    ) -> None:
        if future.cancelled() or future.exception() is not None:
            return  # the client closed the question itself (RequestCancelled): nothing to say
        picked = pick(future.result())
        if picked is None:
            return

        who = f"{display_name(request.agent)}'s request" if request.agent else "the request"
        text = (f"ShellGate: your answer \"{picked.label}\" came too late: {who} to run "
                f"`{escape_one_line(join(request.command))}` was already over "
                "(it counted as no), so nothing ran on it")  # fmt: skip
        with contextlib.suppress(Exception):
            self.server.window_show_message(T.ShowMessageParams(T.MessageType.Warning, text))


async def _ladder(request: ApprovalRequest) -> Sequence[Rung]:
    """The "don't ask again" ladder, read off the event loop (it reads the histories once)."""
    if request.ladder is None:
        return ()

    return await asyncio.get_running_loop().run_in_executor(None, request.ladder)


def _with_rung(answer: Answer, rungs: Sequence[Rung], index: object) -> Answer:
    # Rung 0 is Codex's own amendment: written as Codex writes it, as when no rung is named.
    if answer.decision is not ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT:
        return answer
    if not isinstance(index, int) or isinstance(index, bool) or not 0 < index < len(rungs):
        return answer
    return replace(answer, rung=rungs[index])


def register(server: LanguageServer) -> None:
    """Nothing to listen to: run_command (and any other runner) builds an EditorApprover."""
