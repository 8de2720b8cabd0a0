"""The approval desk: outside agents' questions, one dialog at a time, with their history.

`Desk.ask(request, decision, timeout)` puts the asker's decision to the person: the decision is
made once, where the command is judged (the hook, the MCP server's orchestrator), and carried
typed; the desk does not decide again. What it takes on trust is only what the dialog shows:
the asker could as well have run the command itself. What it would write is checked: Codex's
amendment is offered only when it is a prefix of a command bash runs in the request, so a
"don't ask again" never allows something the person was not shown. A forbidden decision is
refused without a dialog (nobody may wave a forbidden rule through); anything else is put to
the person through the approver (the editor's dialog), named after the agent and carrying the
trace. Questions wait their turn in arrival order; one unanswered in `timeout` seconds (time in
the queue included) is "timeout", a no, with the reason. A question that ends while on screen
(timed out, or its asker hung up) is withdrawn from the editor (`on_closed`, with a notice to
show), so that its dialog closes and the next one shows. "Don't ask again" appends the
amendment to `$CODEX_HOME/rules/default.rules` under the amendment lock, and the answer says
which line was written. Every question is answered exactly once, and kept in the history.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shellgate.approval import amendments
from shellgate.approval.beyond import runs_of
from shellgate.approval.question import ApprovalRequest, Approver, run_question
from shellgate.approval.review import ReviewDecision
from shellgate.broker.decide import _policy, context_of, layers_for
from shellgate.broker.protocol import (
    ANSWERS,
    AgentAnswer,
    AgentDecision,
    AgentRequest,
    display_name,
)
from shellgate.rules.shlex_rs import join
from shellgate.untrusted import escape_one_line

if TYPE_CHECKING:
    from shellgate.approval.amendments import Rung

HISTORY = 200  # questions kept for "Show Approvals"

_ids = itertools.count(1)


@dataclass
class Entry:
    """One question, as the history shows it."""

    id: str
    request: AgentRequest
    decision: AgentDecision  # the asker's
    asked_at: float
    state: str = "waiting"  # waiting | asking | answered | gone | failed | reviewed
    answer: AgentAnswer | None = None
    answered_at: float | None = None
    rung: Rung | None = None  # the "don't ask again" ladder's pick, when not Codex's own
    amendment: tuple[str, ...] | None = None  # Codex's, as the question offered it
    review: dict[str, str | None] | None = None  # Codex's auto-reviewer answered instead

    def to_json(self) -> dict[str, Any]:
        a = self.answer
        return {
            "id": self.id,
            "agent": self.request.agent,
            "agentName": display_name(self.request.agent),
            "sessionId": self.request.session_id,
            "command": list(self.request.argv),
            "cwd": self.request.cwd,
            "state": self.state,
            "decision": self.decision.decision,
            "reason": self.decision.reason,
            "answer": None if a is None else a.answer,
            "message": None if a is None else a.message,
            "amendmentWritten": None if a is None else a.amendment_written,
            "askedAt": self.asked_at,
            "answeredAt": self.answered_at,
            "review": self.review,
        }


@dataclass
class Desk:
    approver: Approver
    codex_home: Callable[[], Path]
    on_change: Callable[[Desk], None] = lambda desk: None
    # A question on screen is over unanswered: (its entry, the notice that says so).
    on_closed: Callable[[Entry, str], None] = lambda entry, notice: None
    history: deque[Entry] = field(default_factory=lambda: deque(maxlen=HISTORY))
    _turn: asyncio.Lock = field(default_factory=asyncio.Lock)  # FIFO: one dialog at a time
    _session: set[tuple[str, str, tuple[str, ...]]] = field(default_factory=set)

    @property
    def waiting(self) -> int:
        """Questions queued behind the dialog on screen."""
        return sum(1 for e in self.history if e.state == "waiting")

    @property
    def showing(self) -> int:
        return sum(1 for e in self.history if e.state == "asking")

    def reviewed(
        self, request: AgentRequest, decision: AgentDecision, review: dict[str, str | None]
    ) -> Entry:
        """Codex's auto-reviewer answered an agent's question (in the agent's hook): kept in
        the history with its verdict, nobody asked."""
        now = time.time()
        allowed = review.get("outcome") == "allow"
        entry = Entry(f"review-{next(_ids)}", request, decision, now, "reviewed",
                      AgentAnswer("accept" if allowed else "decline", review.get("told")), now,
                      review=review)  # fmt: skip
        self.history.append(entry)
        self.on_change(self)
        return entry

    def reviewed_question(
        self, question: ApprovalRequest, review: dict[str, str | None], *, agent: str,
        session_id: str | None = None,
    ) -> Entry:  # fmt: skip
        """The same, for a question of the editor's own runs (Run Command, its agent)."""
        return self.reviewed(*as_agent(question, agent, session_id), review)

    async def ask(
        self, request: AgentRequest, decision: AgentDecision, timeout: float
    ) -> AgentAnswer:
        entry = Entry(f"ask-{next(_ids)}", request, decision, time.time())
        self.history.append(entry)
        self.on_change(self)
        try:
            answer = await asyncio.wait_for(self._answer(entry), timeout)
        except TimeoutError:
            answer = AgentAnswer(
                ReviewDecision.TIMED_OUT.wire,
                f"nobody answered in the editor within {timeout:g} s: that counts as no",
            )
            if entry.state == "asking":
                self.on_closed(entry, f"{_asked(request)} timed out: it was refused")
        except asyncio.CancelledError:  # the asker hung up: nobody is left to answer
            if entry.state == "asking":
                name = display_name(request.agent)
                self.on_closed(entry, f"{_asked(request)} was withdrawn: {name} stopped "
                                      "waiting for the answer, nothing ran")  # fmt: skip
            entry.state = "gone"
            self.on_change(self)
            raise
        except Exception:  # the asker gets the error
            entry.state = "failed"
            self.on_change(self)
            raise
        if answer.answer == ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT.wire and (
            entry.rung is not None or entry.amendment
        ):
            # Outside the timeout: once the person said so, the line is written or reported.
            written = await asyncio.to_thread(self._amend, entry.rung, entry.amendment)
            answer = AgentAnswer(answer.answer, written.failure or answer.message, written.line)
        entry.answer, entry.state, entry.answered_at = answer, "answered", time.time()
        self.on_change(self)
        return answer

    async def _answer(self, entry: Entry) -> AgentAnswer:

        request, decision = entry.request, entry.decision
        if decision.decision == "forbidden":
            return AgentAnswer("decline", f"forbidden by the rules: {decision.reason}")
        key = (request.agent, request.session_id or "", request.argv)
        if request.session_id and key in self._session and not decision.managed:
            return AgentAnswer("acceptForSession", "approved earlier in this session")
        question = self.question(entry.id, request, decision)
        entry.amendment = question.proposed_amendment
        async with self._turn:
            entry.state = "asking"
            self.on_change(self)
            reply = await self.approver.request_approval(question)
        entry.rung = reply.rung
        name = reply.decision.wire if reply.decision.wire in ANSWERS else "decline"
        if name == "acceptForSession":
            self._session.add(key)
        return AgentAnswer(name, reply.message)

    def _amend(self, rung: Rung | None, tokens: tuple[str, ...] | None) -> amendments.Written:
        """The ladder's pick, else Codex's amendment."""
        if rung is not None:
            return amendments.allow_rung(rung)
        assert tokens is not None
        return amendments.allow_prefix(amendments.rules_file(self.codex_home()), tokens)

    def question(self, qid: str, request: AgentRequest, decision: AgentDecision) -> ApprovalRequest:
        """The dialog's question: Codex's choices, plus "No" and, with a session, "this
        session"; the rules that matched; the trace's warnings as notes."""
        amendment = _offered(request, decision)
        offered = [ReviewDecision.APPROVED, ReviewDecision.DENIED, ReviewDecision.ABORT]
        if amendment:
            offered.append(ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT)
        if request.session_id and not decision.managed:
            # an admin's prompt (requirements.toml) is asked every time, as Codex asks it
            offered.append(ReviewDecision.APPROVED_FOR_SESSION)
        return run_question(
            request.argv, request.cwd,
            # Codex's reason (or ShellGate's) when there is one, else the agent's justification.
            decision.reason or request.justification, offered, amendment, decision.matched,
            notes=decision.notes, asker=display_name(request.agent), agent=request.agent,
            explain=decision.explain, qid=qid,
            ladder=self._ladder(request, amendment) if amendment else None)  # fmt: skip

    def _ladder(
        self, request: AgentRequest, amendment: tuple[str, ...]
    ) -> Callable[[], Sequence[Rung]]:
        """The ladder on the same rules from disk the decision used (shellgate.replay)."""

        def rungs() -> Sequence[Rung]:
            # deferred: replay's history readers (~36 ms), only once "don't ask again" is picked
            from shellgate.replay.ladder import history_index, ladder

            home = self.codex_home()
            policy = _policy(layers_for(Path(request.cwd), codex_home=home)[0])
            return ladder(request.argv, amendment, policy, context_of(request),
                          target=amendments.rules_file(home), history=history_index())

        return rungs

    def to_json(self) -> dict[str, Any]:
        return {
            "waiting": self.waiting,
            "showing": self.showing,
            "entries": [e.to_json() for e in self.history],
        }


def _asked(request: AgentRequest) -> str:
    """"Claude Code's request to run `git push`", the command shown literally."""

    command = request.command if isinstance(request.command, str) else join(request.command)
    if len(command) > 200:
        command = command[:200] + "…"
    return f"{display_name(request.agent)}'s request to run `{escape_one_line(command)}`"


def _offered(request: AgentRequest, decision: AgentDecision) -> tuple[str, ...] | None:
    """The asker's amendment, when it allows only what the person is shown: a prefix of a
    command bash runs in the request (an admin's prompt gets none, as in Codex)."""
    amendment = decision.amendment
    if not amendment or decision.managed:
        return None
    n = len(amendment)
    commands = [request.argv, *(run.words for run in runs_of(request.argv))]
    return amendment if any(tuple(c[:n]) == amendment for c in commands) else None


def as_agent(
    question: ApprovalRequest, agent: str, session_id: str | None
) -> tuple[AgentRequest, AgentDecision]:
    """A question of a run ShellGate made itself, in the broker's terms (what the history and
    the broker's `reviewed` carry)."""
    request = AgentRequest(agent, session_id, question.cwd, question.command,
                           question.justification,
                           sandbox_permissions=question.sandbox_permissions)  # fmt: skip
    decision = AgentDecision("prompt", "needs_approval", question.reason,
                             dict(question.explain) if question.explain else None,
                             question.proposed_amendment, False,
                             matched=question.matched_rules)  # fmt: skip
    return request, decision
