"""`Entry`: one decision, whoever made it, as the log keeps it and the exporter reads it.

`decision` uses Codex's `codex.tool_decision` spellings where Codex has one, and says plainly
what Codex exports nothing for:

- approved, approved_for_session, approved_with_amendment: it may run;
- denied: a person, a hook or a reviewer said no;
- forbidden: refused before anyone was asked (a rule, the policy, a PreToolUse hook);
- cancelled: the person stopped the turn;
- deferred: left to the agent's own prompt (no editor reachable).
Which of Codex's events each exports is `codex_events`'s business.

`answerer`: who gave the decision: rules (the rules and the approval policy), hook, reviewer
(auto-review, with its `verdict`), person, agent (deferred). Records, not dataclasses: every
hook builds one on its start-up path.
"""

from __future__ import annotations

import os

from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

DECISIONS = ("approved", "approved_for_session", "approved_with_amendment", "denied",
             "forbidden", "cancelled", "deferred")  # fmt: skip
ANSWERERS = ("rules", "hook", "reviewer", "person", "agent")
APPROVING = frozenset(DECISIONS[:3])
MAX_TEXT = 64 * 1024  # command, arguments, output kept (characters); longer is cut, marked


class Entry(Record):
    agent: str  # codex, claude-code, gemini, copilot-cli, vscode-agent, mcp, run, agent, editor
    command: str
    cwd: str
    decision: str  # DECISIONS
    answerer: str  # ANSWERERS
    time: float = 0.0  # seconds since the epoch; the sink fills it in when 0
    session_id: str | None = None
    call_id: str = ""  # the agent's tool call id, else one of ours
    tool: str | None = None  # the agent's own name for the tool (Bash, run_shell_command, ...)
    arguments: str | None = None  # the call's arguments as JSON, as the agent gave them
    reason: str | None = None
    rule: dict[str, Any] | None = None  # the deciding rule: pattern, decision, file, line, layer
    verdict: str | None = None  # the reviewer's verdict, or the hook's words
    sandbox: str | None = None  # where it ran: read-only, workspace-write, none (unsandboxed)
    sandbox_outcome: str | None = None  # denied | escalated (the sandbox refused it)
    initial_duration_ms: int | None = None
    escalated_duration_ms: int | None = None
    output: str | None = None  # what the model was told; None: the agent ran it, not ShellGate
    exit_code: int | None = None
    duration_ms: int = 0  # the decision's, or the run's when ShellGate ran it
    asked: bool = False  # a question was put to a person (Codex's codex.approval.requested)
    hook_event: str | None = None  # the agent's hook event (PreToolUse, PermissionRequest, ...)
    amendment: str | None = None  # the rule line "don't ask again" wrote
    truncated: bool = False  # command or output cut at MAX_TEXT for the log

    @property
    def approves(self) -> bool:
        return self.decision in APPROVING

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}


def entry_from_json(data: dict[str, Any]) -> Entry:
    fields = Entry._fields
    return Entry(**{k: v for k, v in data.items() if k in fields})


def new_call_id() -> str:
    """A call id in Codex's spelling (`call_` and hex) where the agent gave none."""
    return "call_" + os.urandom(12).hex()


def clip(text: str | None) -> tuple[str | None, bool]:
    if text is None or len(text) <= MAX_TEXT:
        return text, False
    return text[:MAX_TEXT], True


def rule_of(matched: Sequence[Any], decision: str | None) -> dict[str, Any] | None:
    """The deciding rule among a decision's matched rules (`approval.matched.MatchedRule`):
    the first whose decision is the one taken (rules over heuristics), with its file, line and
    layer."""
    if not matched:
        return None
    ranked = sorted(matched, key=lambda m: (m.decision != decision, bool(m.heuristic)))
    best = ranked[0]
    out: dict[str, Any] = {"pattern": " ".join(best.prefix), "decision": best.decision}
    if best.heuristic:
        out["heuristic"] = True
    if best.source:
        file, line = _file_line(best.source)
        out["file"], out["line"] = file, line
    if best.layer:
        out["layer"] = best.layer
    if best.justification:
        out["justification"] = best.justification
    return out


def _file_line(source: str) -> tuple[str, int | None]:
    """"path:line:column" (a path may hold colons)."""
    parts = source.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return parts[0], int(parts[1])
    return source, None
