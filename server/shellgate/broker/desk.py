"""The approval desk: outside agents' questions, one dialog at a time, with their history.

`Desk.ask(request, timeout)` decides the command on the rules from disk; a forbidden one is
refused without a dialog (nobody may wave a forbidden rule through); anything else is put to
the person through the approver (the editor's dialog), named after the agent and carrying the
trace. Questions wait their turn in arrival order; one unanswered in `timeout` seconds (time in
the queue included) is "timeout", a no, with the reason. "Don't ask again" appends Codex's
amendment to `$CODEX_HOME/rules/default.rules` under the amendment lock, and the answer says
which line was written. Every question is answered exactly once, and kept in the history.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shellgate.approval.review import ReviewDecision
from shellgate.broker.protocol import AgentAnswer, AgentDecision, AgentRequest, display_name
from shellgate.exec.approver import (
    ApprovalRequest,
    Approver,
    MatchedRule,
    RequestKind,
    exec_choices,
)

HISTORY = 200  # questions kept for "Show Approvals"

_ANSWERS = {
    ReviewDecision.APPROVED: "accept",
    ReviewDecision.APPROVED_FOR_SESSION: "acceptForSession",
    ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT: "acceptWithExecpolicyAmendment",
    ReviewDecision.DENIED: "decline",
    ReviewDecision.ABORT: "cancel",
    ReviewDecision.TIMED_OUT: "timeout",
}
_ids = itertools.count(1)


@dataclass
class Entry:
    """One question, as the history shows it."""

    id: str
    request: AgentRequest
    asked_at: float
    state: str = "deciding"  # deciding | waiting | asking | answered | gone
    decision: AgentDecision | None = None
    answer: AgentAnswer | None = None
    answered_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        d, a = self.decision, self.answer
        return {
            "id": self.id,
            "agent": self.request.agent,
            "agentName": display_name(self.request.agent),
            "sessionId": self.request.session_id,
            "command": list(self.request.argv),
            "cwd": self.request.cwd,
            "state": self.state,
            "decision": None if d is None else d.decision,
            "reason": None if d is None else d.reason,
            "answer": None if a is None else a.answer,
            "message": None if a is None else a.message,
            "amendmentWritten": None if a is None else a.amendment_written,
            "askedAt": self.asked_at,
            "answeredAt": self.answered_at,
        }


@dataclass
class Desk:
    approver: Approver
    codex_home: Callable[[], Path]
    on_change: Callable[[Desk], None] = lambda desk: None
    history: deque[Entry] = field(default_factory=lambda: deque(maxlen=HISTORY))
    _turn: asyncio.Lock = field(default_factory=asyncio.Lock)  # FIFO: one dialog at a time
    _session: set[tuple[str, str, tuple[str, ...]]] = field(default_factory=set)

    @property
    def waiting(self) -> int:
        """Questions queued behind the dialog on screen."""
        return sum(1 for e in self.history if e.state in ("deciding", "waiting"))

    @property
    def showing(self) -> int:
        return sum(1 for e in self.history if e.state == "asking")

    async def ask(self, request: AgentRequest, timeout: float) -> AgentAnswer:
        entry = Entry(f"ask-{next(_ids)}", request, time.time())
        self.history.append(entry)
        self.on_change(self)
        try:
            answer = await asyncio.wait_for(self._answer(entry), timeout)
        except TimeoutError:
            answer = AgentAnswer(
                "timeout", f"nobody answered in the editor within {timeout:g} s: that counts as no"
            )
        except asyncio.CancelledError:  # the asker hung up: nobody is left to answer
            entry.state = "gone"
            self.on_change(self)
            raise
        amendment = entry.decision.amendment if entry.decision else None
        if answer.answer == "acceptWithExecpolicyAmendment" and amendment:
            # Outside the timeout: once the person said so, the line is written or reported.
            written, failure = await asyncio.to_thread(self._amend, amendment)
            answer = AgentAnswer(answer.answer, failure or answer.message, written)
        entry.answer, entry.state, entry.answered_at = answer, "answered", time.time()
        self.on_change(self)
        return answer

    async def _answer(self, entry: Entry) -> AgentAnswer:
        from shellgate.broker.decide import decide

        request = entry.request
        decision = await asyncio.to_thread(decide, request, codex_home=self.codex_home())
        entry.decision = decision
        if decision.decision == "forbidden":
            return AgentAnswer("decline", f"forbidden by the rules: {decision.reason}")
        key = (request.agent, request.session_id or "", request.argv)
        if request.session_id and key in self._session:
            return AgentAnswer("acceptForSession", "approved earlier in this session")
        question = self.question(entry.id, request, decision)
        entry.state = "waiting"
        self.on_change(self)
        async with self._turn:
            entry.state = "asking"
            self.on_change(self)
            reply = await self.approver.request_approval(question)
        name = _ANSWERS.get(reply.decision, "decline")
        if name == "acceptForSession":
            self._session.add(key)
        return AgentAnswer(name, reply.message)

    def _amend(self, tokens: tuple[str, ...]) -> tuple[str | None, str | None]:
        """(the line written, None) or (None, why nothing was written)."""
        from shellgate.rules.amend import AmendError, append_allow_prefix_rule, prefix_rule_line

        path = self.codex_home() / "rules" / "default.rules"
        try:
            append_allow_prefix_rule(path, tokens)
        except (AmendError, OSError) as exc:
            return None, f"approved, but the rule could not be written to {path}: {exc}"
        return prefix_rule_line(tokens), None

    def question(self, qid: str, request: AgentRequest, decision: AgentDecision) -> ApprovalRequest:
        """The dialog's question: Codex's choices, plus "No" and, with a session, "this
        session"; the rules that matched; the explain warnings as notes."""
        from shellgate.rules.amend import AmendError, prefix_rule_line

        amendment, text = decision.amendment, None
        if amendment:
            try:
                text = prefix_rule_line(amendment)
            except AmendError:
                amendment = None  # a line Codex could not load again is never offered
        offered = [ReviewDecision.APPROVED, ReviewDecision.DENIED, ReviewDecision.ABORT]
        if amendment:
            offered.append(ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT)
        if request.session_id:
            offered.append(ReviewDecision.APPROVED_FOR_SESSION)
        ex = decision.explain or {}
        return ApprovalRequest(
            id=qid,
            kind=RequestKind.EXEC,
            command=request.argv,
            cwd=request.cwd,
            reason=decision.reason or request.justification,
            choices=exec_choices(offered, amendment),
            matched_rules=tuple(_matched(ex)),
            proposed_amendment=amendment,
            amendment_text=text,
            notes=tuple(str(w.get("message")) for w in ex.get("warnings", ())),
            agent=request.agent,
            explain=decision.explain,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "waiting": self.waiting,
            "showing": self.showing,
            "entries": [e.to_json() for e in self.history],
        }


def _matched(ex: dict[str, Any]) -> list[MatchedRule]:
    out = []
    for seg in ex.get("segments", ()):
        for hit in seg.get("matched_rules", ()):
            where = None
            if hit.get("file"):
                where = f"{hit['file']}:{hit.get('line')}:{hit.get('column')}"
            out.append(MatchedRule(hit["decision"], tuple(hit["matched_prefix"]), where,
                                   hit.get("justification")))  # fmt: skip
        heuristic = seg.get("heuristic")
        if not seg.get("matched_rules") and heuristic is not None:
            out.append(MatchedRule(heuristic["decision"], tuple(seg["command"]), None,
                                   heuristic.get("why"), heuristic=True))  # fmt: skip
    return out
