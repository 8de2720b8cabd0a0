"""The `Entry` of each decision point, built from what that point already holds, so that each
call site is one line: `record(from_hook(...))`, `record(from_codex_hook(...))`,
`record(from_flow(...))`.

Duck-typed on purpose: the hooks' `AgentRequest` / `AgentDecision` / `AgentAnswer` and the
orchestrator's values live in packages that import this one. An answer that says who gave it
(`answerer`, `verdict` attributes: a hook or the auto-reviewer as an answering stage) is taken
at its word; otherwise an answer came from a person.
"""

from __future__ import annotations

import json
import time

from shellgate.record.entry import Entry, rule_of
from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

# A broker answer's wire name -> the record's decision.
BY_WIRE = {"accept": "approved", "acceptForSession": "approved_for_session",
           "acceptWithExecpolicyAmendment": "approved_with_amendment", "decline": "denied",
           "timeout": "denied", "cancel": "cancelled"}  # fmt: skip
# The desk's words for a yes it gave without a dialog (approved earlier in the session).
SESSION_WORDS = "approved earlier in this session"
# broker.protocol / approval.review values -> the record's decision
BY_REVIEW = {"approved": "approved", "approved_for_session": "approved_for_session",
             "approved_execpolicy_amendment": "approved_with_amendment",
             "network_policy_amendment": "approved", "denied": "denied", "timed_out": "denied",
             "abort": "cancelled"}  # fmt: skip


def _command_text(command: str | Sequence[str]) -> str:
    if isinstance(command, str):
        return command
    from shellgate.rules.shlex_rs import join  # deferred: an argv command only (not the hooks')

    return join(list(command))


def _elapsed(started: float) -> int:
    return max(0, int((time.monotonic() - started) * 1000))


def _answered_by(answer: Any) -> tuple[str, str | None]:
    """Who answered, and their words: a stage that says who it is (a hook, the reviewer), else
    a person; an unanswered question's reason ("standard input is closed") as the words. An
    answer wrapped with who gave it (`answer`, `by`: the answering stage's) is unwrapped."""
    inner, by = _unwrap(answer)
    said = (getattr(answer, "verdict", None) or getattr(answer, "source", None)
            or getattr(inner, "unanswered", None))  # fmt: skip
    return str(by or getattr(answer, "answerer", None) or "person"), said


def _unwrap(answer: Any) -> tuple[Any, str | None]:
    """(the answer itself, who gave it when it says so)."""
    inner = getattr(answer, "answer", None)
    if inner is not None and hasattr(inner, "decision"):
        by = getattr(answer, "by", None)
        return inner, getattr(by, "value", by)
    return answer, None


def from_hook(request: Any, verdict: str, reason: str, trail: Mapping[str, Any],
              started: float, *, sandbox: str | None = None) -> Entry:  # fmt: skip
    """A hook's resolution (hooks.outcome: allow / block / ask) for Claude Code, Gemini CLI,
    Copilot CLI and VS Code's agent; `trail`: the seam's decision and answer."""
    decision, answer = trail.get("decision"), trail.get("answer")
    answerer, said = "rules", None
    asked = False
    if verdict == "ask":
        taken, answerer = "deferred", "agent"
    elif answer is not None:
        answerer, said = _answered_by(answer)
        taken = BY_WIRE.get(answer.answer, "denied")
        asked = answer.message != SESSION_WORDS
        if answer.answer == "cancel":  # "No, and tell the agent…": the agent reads the words
            taken, said = "denied", answer.message or said  # and goes on: a no, not a stop
        if verdict == "block" and taken.startswith("approved"):
            taken = "forbidden"  # approved, then refused by ShellGate (deny_read without sandbox)
        if answer.answer == "timeout":
            said = "timeout"
    elif verdict == "allow":
        taken = "approved"
    else:
        taken = "forbidden"
    # an answering stage that decided without a question says so in the trail (the admin's
    # PreToolUse hook refusing: answerer "hook", hook_event "PreToolUse")
    answerer = str(trail.get("answerer") or answerer)
    return Entry(
        agent=request.agent, command=_command_text(request.command), cwd=request.cwd,
        decision=taken, answerer=answerer, session_id=request.session_id,
        arguments=json.dumps({"command": request.command, "workdir": request.cwd}),
        reason=reason, verdict=said,
        rule=rule_of(getattr(decision, "matched", ()), getattr(decision, "decision", None)),
        sandbox=sandbox if verdict == "allow" else None, duration_ms=_elapsed(started),
        asked=asked, amendment=getattr(answer, "amendment_written", None),
        hook_event=trail.get("hook_event"),
    )  # fmt: skip


def from_tool(agent: str, event: Mapping[str, Any], tool: str, tool_input: Mapping[str, Any],
              verdict: str, reason: str) -> Entry:  # fmt: skip
    """A tool that is not a shell command, decided by ShellGate's own rule (Copilot's and VS
    Code's tasks, VS Code commands, notebook cells): refused, or left to the person."""
    arguments = json.dumps(tool_input, ensure_ascii=False, sort_keys=True)
    return Entry(
        agent=agent, command=f"{tool} {arguments}", cwd=str(event.get("cwd") or ""),
        decision="deferred" if verdict == "ask" else "forbidden",
        answerer="agent" if verdict == "ask" else "rules",
        session_id=event.get("session_id") or event.get("sessionId"),
        call_id=str(event.get("tool_use_id") or ""), tool=tool, arguments=arguments,
        reason=reason,
    )  # fmt: skip


def from_codex_hook(event: Mapping[str, Any], answer: Mapping[str, Any] | None,
                    trail: Mapping[str, Any], started: float) -> Entry | None:  # fmt: skip
    """ShellGate as Codex's own hook: what it answered (None: it stayed quiet, Codex decides,
    and Codex's telemetry says how). PreToolUse deny is Codex's "blocked by a PreToolUse hook";
    PermissionRequest is answered by the person in the editor, or refused by ShellGate."""
    if not answer:
        return None
    request, decision, said = trail.get("request"), trail.get("decision"), trail.get("answer")
    if request is None:
        return None
    out = answer.get("hookSpecificOutput") or {}
    hook_event = str(out.get("hookEventName") or event.get("hook_event_name") or "")
    reason: str | None
    if hook_event == "PreToolUse":
        taken, answerer, reason = "forbidden", "hook", out.get("permissionDecisionReason")
    else:
        behaviour = (out.get("decision") or {}).get("behavior")
        reason = (out.get("decision") or {}).get("message")
        if said is not None:
            answerer = _answered_by(said)[0]
            taken = BY_WIRE.get(said.answer, "denied")
        else:  # refused by ShellGate's rules without asking
            answerer, taken = "hook", "denied" if behaviour == "deny" else "approved"
    asked = said is not None and said.message != SESSION_WORDS
    return Entry(
        agent="codex", command=_command_text(request.command), cwd=request.cwd,
        decision=taken, answerer=answerer, session_id=request.session_id,
        call_id=str(event.get("tool_use_id") or ""), tool=str(event.get("tool_name") or ""),
        arguments=json.dumps(event.get("tool_input")), reason=reason,
        rule=rule_of(getattr(decision, "matched", ()), getattr(decision, "decision", None)),
        duration_ms=_elapsed(started), asked=asked and answerer == "person",
        hook_event=hook_event, amendment=getattr(said, "amendment_written", None),
    )  # fmt: skip


def from_flow(agent: str, command: Sequence[str], cwd: str, *, status: str, started: float,
              requirement: str, matched: Sequence[Any] = (), answers: Sequence[Any] = (),
              cached: bool = False, attempts: Sequence[Any] = (), output: str | None = None,
              exit_code: int | None = None, reason: str | None = None,
              sandbox: str | None = None, session_id: str | None = None,
              call_id: str = "", answered_by: str | None = None) -> Entry:  # fmt: skip
    """One command through the orchestrator (run, the agent, the MCP `shell` tool, the
    editor's runs): `status` its ExecResult status, `requirement` skip / needs_approval /
    forbidden, `answers` the approval answers in order (an `Answer`, or one wrapped with who
    gave it), `attempts` the AttemptInfos, `answered_by` who decided when the flow says so (a
    PreToolUse hook's refusal)."""
    requirement = requirement.replace("_", "")  # skip, needsapproval, forbidden
    first = answers[0] if answers else None
    answerer, said = ("person", None) if first is None else _answered_by(first)
    if status == "forbidden":
        taken, answerer = "forbidden", "rules"
    elif status == "aborted":
        taken = "cancelled"
    elif status == "denied":
        taken = "denied"
    elif first is not None:
        taken = BY_REVIEW.get(_unwrap(first)[0].decision.value, "approved")
    elif cached:
        taken, answerer = "approved_for_session", "person"
    else:
        taken, answerer = "approved", "rules"
    if requirement != "needsapproval" and first is None and status == "denied":
        answerer = "person"  # refused at the escalation's question
    hook_event = None
    if answered_by == "hook" and status == "forbidden" and first is None:
        answerer, hook_event = "hook", "PreToolUse"  # a PreToolUse hook refused it
    ran = [a for a in attempts if getattr(a, "outcome", None) is not None]
    outcome, initial, escalated = None, None, None
    if ran and ran[0].sandboxed and getattr(ran[0].outcome, "is_denial", False):
        outcome = "escalated" if len(ran) > 1 else "denied"
        initial = int(getattr(ran[0], "duration_ms", 0))
        if outcome == "escalated":
            escalated = sum(int(getattr(a, "duration_ms", 0)) for a in ran[1:])
    used = None
    if ran:
        used = sandbox if ran[-1].sandboxed else "none"
    return Entry(
        agent=agent, command=_command_text(command), cwd=cwd, decision=taken,
        answerer=answerer, session_id=session_id, call_id=call_id,
        arguments=json.dumps({"cmd": _command_text(command), "workdir": cwd}),
        reason=reason, verdict=said, rule=rule_of(matched, _rule_decision(requirement)),
        sandbox=used, sandbox_outcome=outcome, initial_duration_ms=initial,
        escalated_duration_ms=escalated, output=output, exit_code=exit_code,
        duration_ms=_elapsed(started), asked=bool(answers) and answerer == "person",
        hook_event=hook_event,
    )  # fmt: skip


def _rule_decision(requirement: str) -> str:
    return {"skip": "allow", "needsapproval": "prompt", "forbidden": "forbidden"}.get(
        requirement, "allow")  # fmt: skip
