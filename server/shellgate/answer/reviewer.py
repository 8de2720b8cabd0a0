"""Codex's auto-reviewer as an answerer (spec auto-review.md): a question that would go to the
person under on-request or granular goes to a reviewer model instead, and the person is never
asked for it, whatever the verdict.

Only `outcome` acts: allow runs the command as approved once; deny refuses it with Codex's
text for the model. Every failure fails closed (Codex's three answers for one review, four HTTP
tries a call, the deadline `timeout_ms`, 90 s by default), and three consecutive denials in a
turn interrupt it. The reviewer may run read-only commands to look around: they run in
ShellGate's read-only sandbox without network, never approved, never outside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from shellgate.answer.review_client import Provider, ReviewHttpError, Turn, ask_model
from shellgate.answer.review_request import (
    FOLLOW_UP_NOTE,
    TEXT_FORMAT,
    TOOLS,
    Entry,
    action_json,
    first_review,
    follow_up,
    network_action_json,
)
from shellgate.approval.answerers import Answered, AnsweredBy
from shellgate.approval.question import Answer, ApprovalRequest, RequestKind
from shellgate.approval.review import ReviewDecision

ATTEMPTS = 3  # answers asked for one review (a malformed answer, a server error)
TOOL_ROUNDS = 8  # read-only looks the reviewer may take in one answer
BREAKER = 3  # consecutive denials in a turn

DENIED = (
    "This action was rejected due to unacceptable risk.\nReason: {reason}\nThe agent must not "
    "attempt to achieve the same outcome via workaround, indirect execution, or policy "
    "circumvention. Proceed only with a materially safer alternative, or if the user explicitly "
    "approves the action after being informed of the risk. Otherwise, stop and request user "
    "input."
)
NO_RATIONALE = "Auto-review returned a deny decision without a rationale."
FAILED = (
    "Automatic approval review failed: {error}\nThe action was not executed because automatic "
    "approval review could not be completed. This is a review failure, not a determination "
    "that the action is unsafe. Do not bypass the approval check; resolve the error or ask the "
    "user for guidance."
)
TIMED_OUT = (
    "The automatic permission approval review did not finish before its deadline. Do not "
    "assume the action is unsafe based on the timeout alone. You may retry once, or ask the "
    "user for guidance or explicit approval."
)
CIRCUIT = (
    "Automatic approval review rejected too many approval requests for this turn "
    "({consecutive} consecutive, {recent} in the last 50 reviews); interrupting the turn."
)
NOT_JSON = "guardian assessment was not valid JSON"
ENUMS = {"risk_level": ("low", "medium", "high", "critical"),
         "user_authorization": ("unknown", "low", "medium", "high"),
         "outcome": ("allow", "deny")}  # fmt: skip

ReadOnly = Callable[[str, str], Awaitable[str]]  # (command, cwd) -> what the reviewer reads


@dataclass(frozen=True)
class Verdict:
    """The reviewer's assessment (reported; only `outcome` acts)."""

    outcome: str
    risk_level: str | None = None
    user_authorization: str | None = None
    rationale: str | None = None


class BadAnswer(ValueError):
    pass


def parse_verdict(text: str) -> Verdict:
    """The assistant's last text as Codex reads it: prose around one JSON object is tolerated,
    extra fields ignored, an enum value outside the schema is an error in serde's words."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise BadAnswer(NOT_JSON)
    raw = text[start : end + 1]
    try:
        data = json.loads(raw)
    except ValueError:
        raise BadAnswer(NOT_JSON) from None
    if not isinstance(data, dict) or "outcome" not in data:
        raise BadAnswer("missing field `outcome`" if isinstance(data, dict) else NOT_JSON)
    for key, allowed in ENUMS.items():
        value = data.get(key)
        if value is None and key != "outcome":
            continue
        if not isinstance(value, str) or value not in allowed:
            raise BadAnswer(_serde_variant(raw, key, value, allowed))
    rationale = data.get("rationale")
    return Verdict(data["outcome"], data.get("risk_level"), data.get("user_authorization"),
                   rationale if isinstance(rationale, str) else None)  # fmt: skip


def _serde_variant(raw: str, key: str, value: object, allowed: Sequence[str]) -> str:
    expected = ", ".join(f"`{a}`" for a in allowed)
    found = re.search(rf'"{re.escape(key)}"\s*:\s*("(?:[^"\\]|\\.)*"|[^,}}]*)', raw)
    where = ""
    if found is not None:
        end = found.end(1)
        line = raw.count("\n", 0, end) + 1
        column = end - (raw.rfind("\n", 0, end) + 1)
        where = f" at line {line} column {column}"
    if not isinstance(value, str):
        return f"invalid type: expected one of {expected}{where}"
    return f"unknown variant `{value}`, expected one of {expected}{where}"


@dataclass
class Reviewer:
    """One session's reviewer conversation (an `Answerer`)."""

    provider: Provider
    policy: str
    transcript: Callable[[], Sequence[Entry]] = lambda: ()
    timeout_ms: int = 90_000
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    env: Mapping[str, str] = field(default_factory=dict)
    read_only: ReadOnly | None = None
    client: httpx.AsyncClient | None = None
    sandbox: str = "read-only"  # the session's sandbox mode (the environment it describes)
    history: list[dict[str, Any]] = field(default_factory=list)  # the conversation so far
    verdicts: list[tuple[ApprovalRequest, Verdict | None, str]] = field(default_factory=list)
    # told of every review as it is made (the editor's approval history lists it)
    on_verdict: Callable[[ApprovalRequest, dict[str, str | None]], None] | None = None
    requests: int = 0  # model calls made (for the comparison with Codex's tries)
    _seen: int = 0  # transcript entries already shown
    _last_answer: str | None = None
    _denials: int = 0  # consecutive, this turn
    _recent: list[bool] = field(default_factory=list)  # denied?, the last 50 reviews

    def new_turn(self) -> None:
        self._denials = 0

    def snapshot(self) -> dict[str, Any]:
        """The conversation and the breaker's count, to go on in another process (a hook's
        next call in the same agent session)."""
        return {"session_id": self.session_id, "history": self.history, "seen": self._seen,
                "last_answer": self._last_answer, "denials": self._denials,
                "recent": self._recent}  # fmt: skip

    def restore(self, state: Mapping[str, Any]) -> None:
        self.session_id = str(state["session_id"])
        self.history = list(state["history"])
        self._seen = int(state["seen"])
        self._last_answer = state.get("last_answer")
        self._denials = int(state["denials"])
        self._recent = [bool(x) for x in state["recent"]][-50:]

    async def answer(self, request: ApprovalRequest) -> Answered | None:
        if request.kind is RequestKind.PATCH:
            return None
        answered = await self._answer(request)
        if self.on_verdict is not None:
            self.on_verdict(request, {**self.verdict_json(), "told": answered.said})
        return answered

    def verdict_json(self) -> dict[str, str | None]:
        """The last review as the editor's history keeps it (broker `review`)."""
        _, verdict, _ = self.verdicts[-1]
        return {"outcome": verdict.outcome if verdict else None,
                "riskLevel": verdict.risk_level if verdict else None,
                "userAuthorization": verdict.user_authorization if verdict else None,
                "rationale": verdict.rationale if verdict else None,
                "model": self.provider.model, "told": None}  # fmt: skip

    async def _answer(self, request: ApprovalRequest) -> Answered:
        try:
            done = await asyncio.wait_for(self._review(request), self.timeout_ms / 1000)
        except TimeoutError:
            self.verdicts.append((request, None, "timed out"))
            return self._refused(TIMED_OUT)
        if isinstance(done, str):  # a failure, in Codex's words
            self.verdicts.append((request, None, done))
            return self._refused(FAILED.format(error=done))
        self.verdicts.append((request, done, done.outcome))
        self._recent = [*self._recent, done.outcome == "deny"][-50:]
        if done.outcome == "allow":
            self._denials = 0
            return Answered(Answer(ReviewDecision.APPROVED), AnsweredBy.REVIEWER,
                            self.provider.model)  # fmt: skip
        self._denials += 1
        said = DENIED.format(reason=done.rationale or NO_RATIONALE)
        if self._denials >= BREAKER:
            said = CIRCUIT.format(consecutive=self._denials, recent=sum(self._recent))
            return Answered(Answer(ReviewDecision.ABORT), AnsweredBy.REVIEWER,
                            self.provider.model, said)  # fmt: skip
        return self._refused(said)

    def _refused(self, said: str) -> Answered:
        return Answered(Answer(ReviewDecision.DENIED), AnsweredBy.REVIEWER, self.provider.model,
                        said)  # fmt: skip

    async def _review(self, request: ApprovalRequest) -> Verdict | str:
        action = action_json(request.command, request.cwd, request.justification,
                             request.sandbox_permissions)  # fmt: skip
        if request.kind is RequestKind.NETWORK and request.host:
            action = network_action_json(request.host)
        if request.kind is RequestKind.ESCALATION:
            reason: str | None = "command failed; retry without sandbox?"
        elif request.sandbox_permissions == "require_escalated":
            reason = None
        else:
            reason = request.reason
        entries = list(self.transcript())
        client = self.client or httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0),
                                                  trust_env=False)  # fmt: skip
        try:
            for attempt in range(ATTEMPTS):
                self._extend(entries, request.cwd, action, reason)
                try:
                    text = await self._converse(client, request.cwd)
                except ReviewHttpError as exc:
                    # no answer: the next attempt adds the request again, without one (Codex)
                    self._last_answer = None
                    if exc.retry_attempt and attempt + 1 < ATTEMPTS:
                        continue
                    return exc.message
                self._last_answer = text
                try:
                    return parse_verdict(text)
                except BadAnswer as exc:  # asked again in the same conversation
                    if attempt + 1 == ATTEMPTS:
                        return str(exc)
            return NOT_JSON
        finally:
            if self.client is None:
                await client.aclose()

    def _extend(self, entries: list[Entry], cwd: str, action: str, reason: str | None) -> None:
        """The first review's input, or what a later review (or a retry) adds to it."""
        if not self.history:
            self.history = first_review(self.policy, cwd, self.session_id, entries, action,
                                        reason, self.sandbox)  # fmt: skip
        else:
            users = sum(e.kind == "user" for e in entries[: self._seen])
            noted = any(c.get("text") == FOLLOW_UP_NOTE for m in self.history
                        for c in m.get("content") or () if isinstance(c, dict))
            self.history += follow_up(self._last_answer, self.session_id,
                                      entries[self._seen :], self._seen + 1, users, action,
                                      reason, noted=noted)  # fmt: skip
        self._seen = len(entries)

    async def _converse(self, client: httpx.AsyncClient, cwd: str) -> str:
        """One answer from the reviewer, its read-only looks included."""
        for _ in range(TOOL_ROUNDS):
            self.requests += 1
            turn: Turn = await ask_model(client, self.provider, self._body(), self._headers())
            if not turn.calls:
                return turn.text
            self.history += [dict(item) for item in turn.items]
            for call in turn.calls:
                output = await self._look(call.name, call.arguments, cwd)
                self.history.append({"type": "function_call_output", "call_id": call.call_id,
                                     "output": output})  # fmt: skip
        return ""

    async def _look(self, name: str, arguments: str, cwd: str) -> str:
        if name != "exec_command":
            return f"{name} is not available to the reviewer here"
        try:
            cmd = json.loads(arguments).get("cmd")
        except (ValueError, AttributeError):
            cmd = None
        if not isinstance(cmd, str):
            return "exec_command needs a `cmd` string"
        if self.read_only is None:
            return "no read-only sandbox is available: the command was not run"
        return await self.read_only(cmd, cwd)

    def _body(self) -> dict[str, Any]:
        reasoning: dict[str, Any] = {"summary": "auto"}  # Codex's for a model it does not know
        text: dict[str, Any] = TEXT_FORMAT
        if self.provider.model.startswith("gpt-5"):  # as Codex sent for gpt-5.5 (live oracle)
            reasoning, text = {"effort": "low"}, {"verbosity": "low", **TEXT_FORMAT}
        elif self.provider.model.startswith(("o3", "o4", "codex")):
            reasoning = {"effort": "low", "summary": "auto"}
        return {"model": self.provider.model, "stream": True, "input": self.history,
                "tools": TOOLS, "tool_choice": "auto", "parallel_tool_calls": True,
                "reasoning": reasoning, "store": False,
                "include": ["reasoning.encrypted_content"],
                "prompt_cache_key": f"guardian:{self.session_id}", "text": text}

    def _headers(self) -> dict[str, str]:
        headers = {"x-openai-subagent": "guardian",
                   "x-codex-parent-thread-id": self.session_id,
                   "originator": "shellgate"}  # fmt: skip
        key = self.provider.key(self.env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers


async def read_only_look(command: str, cwd: str) -> str:
    """A command the reviewer asks to run: in ShellGate's read-only sandbox, no network, at
    most 30 s; never approved to leave it. Without a working sandbox it does not run."""
    # deferred: the sandbox (~20 ms), only when the reviewer looks around
    from shellgate.exec.probe import probe_sandbox
    from shellgate.exec.runner import run_attempt
    from shellgate.exec.sandbox import FsAccess, NetworkAccess, SandboxSetupError, build_spec

    probe = probe_sandbox()
    if not probe.ok:
        return f"the read-only sandbox is unavailable ({probe.reason}): the command was not run"
    try:
        spec = build_spec(FsAccess.READ_ONLY, cwd, network=NetworkAccess.OFF)
    except SandboxSetupError as exc:
        return f"the read-only sandbox could not be set up: {exc}"
    result = await run_attempt(["bash", "-lc", command], cwd=cwd, spec=spec, probe=probe,
                               timeout=30)  # fmt: skip
    with contextlib.suppress(Exception):
        return (f"Process exited with code {result.exit_code}\nOutput:\n"
                f"{(result.stdout + result.stderr)[:20000]}")  # fmt: skip
    return "the command could not be run"
