"""One decision as Codex exports its own (spec: ../shared/spec/otel-events.md, observed with
Codex 0.169.0 and 0.171.0): the same event names, attribute names, value spellings and types,
and the same rule for which situation exports which events; what only ShellGate knows rides
along under `shellgate.`.

- approved by the rules, a hook or a reviewer: logs codex.tool_decision {decision, source
  "Config"} and codex.tool_result (success "true"); a hook's: metric codex.hooks.run completed;
- a person answered: codex.tool_decision {decision, source "User"} and codex.tool_result;
  metric codex.approval.requested {approved}; approved for the session earlier (no question):
  the same logs, approved_for_session / User, and no metric;
- denied (person, hook, reviewer): codex.tool_decision denied and codex.tool_result success
  "false"; metric approval.requested denied (person) or hooks.run blocked (hook);
- forbidden by a rule or the policy: codex.tool_result success "false" only; refused by a
  PreToolUse hook: no log, metric codex.hooks.run blocked;
- cancelled, deferred: nothing;
- the sandbox denied it: also codex.sandbox_outcome {outcome denied | escalated,
  initial_duration_ms, escalated_duration_ms: ints}.

Types as Codex's: `duration_ms` a string, `success` the string "true"/"false", `tool_result_seq`
an int, `output_truncated` a bool. The command and its output go on logs only; the trace
carries lengths (`spans`). Pure: no I/O; `otlp.py` sends what this builds.
"""

from __future__ import annotations

import json
import time

from shellgate import __version__
from shellgate.record.entry import Entry
from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SERVICE_NAME = "shellgate"
LOG_SCOPE = "codex_otel.log_only"  # Codex's scopes: a collector's filters keep working
METRIC_SCOPE = "codex"
TOOL_NAME = "exec_command"
# Which front end made the decision, as Codex's `session_source` (exec, vscode) names its own.
SESSION_SOURCE = {"codex": "hook", "claude-code": "hook", "gemini": "hook", "copilot-cli": "hook",
                  "vscode-agent": "hook", "mcp": "mcp", "run": "exec", "agent": "exec",
                  "editor": "vscode", "editor-agent": "vscode"}  # fmt: skip
HOOK_STATUS = {True: "completed", False: "blocked"}


def _iso(t: float) -> str:
    ms = round(t * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def common(entry: Entry, env: Mapping[str, str]) -> dict[str, Any]:
    """Every Codex log event's attributes (model and slug: the agent's, when ShellGate knows
    it; a hook does not)."""
    model = env.get("SHELLGATE_MODEL") or "unknown"
    return {
        "event.timestamp": _iso(entry.time),
        "conversation.id": entry.session_id or "",
        "app.version": __version__,
        "originator": entry.agent,
        "terminal.type": env.get("TERM_PROGRAM") or env.get("TERM") or "unknown",
        "model": model,
        "slug": model,
    }


def ours(entry: Entry, digest: str | None) -> dict[str, Any]:
    """What only ShellGate knows, under `shellgate.` (never None-valued: OTLP has no null)."""
    out: dict[str, Any] = {
        "shellgate.agent": entry.agent,
        "shellgate.answerer": entry.answerer,
        "shellgate.decision": entry.decision,
        "shellgate.sandbox": entry.sandbox or "none",
    }
    rule = entry.rule or {}
    for key in ("pattern", "decision", "file", "line", "layer"):
        if rule.get(key) is not None:
            out[f"shellgate.rule.{key}"] = rule[key]
    optional = {"shellgate.reviewer.verdict" if entry.answerer == "reviewer" else
                "shellgate.verdict": entry.verdict, "shellgate.reason": entry.reason,
                "shellgate.tool": entry.tool, "shellgate.hook_event": entry.hook_event,
                "shellgate.amendment": entry.amendment,
                "shellgate.record.hash": digest}  # fmt: skip
    out.update({k: v for k, v in optional.items() if v is not None})
    if entry.exit_code is not None:
        out["shellgate.exit_code"] = entry.exit_code
    return out


def source(entry: Entry) -> str:
    """Codex's `source`: User only when a person answered (now or earlier in the session)."""
    return "User" if entry.answerer == "person" else "Config"


def arguments(entry: Entry) -> str:
    if entry.arguments is not None:
        return entry.arguments
    return json.dumps({"cmd": entry.command, "workdir": entry.cwd})


def logs(entry: Entry, env: Mapping[str, str], digest: str | None = None,
         seq: int = 1) -> list[dict[str, Any]]:  # fmt: skip
    """The log events, each {"event.name": ..., attributes...}, in Codex's order."""
    base = {**common(entry, env), **ours(entry, digest)}
    out: list[dict[str, Any]] = []
    decided = entry.decision in ("approved", "approved_for_session", "approved_with_amendment",
                                 "denied")  # fmt: skip
    refused = entry.decision == "forbidden" and entry.answerer != "hook"
    if decided:
        out.append({"event.name": "codex.tool_decision", **base, "tool_name": TOOL_NAME,
                    "tool_namespace": "functions", "call_id": entry.call_id,
                    "decision": entry.decision, "source": source(entry)})  # fmt: skip
    if entry.sandbox_outcome in ("denied", "escalated"):
        outcome: dict[str, Any] = {
            "event.name": "codex.sandbox_outcome", **base, "tool_name": TOOL_NAME,
            "call_id": entry.call_id, "outcome": entry.sandbox_outcome,
            "initial_duration_ms": int(entry.initial_duration_ms or 0)}  # fmt: skip
        if entry.sandbox_outcome == "escalated":
            outcome["escalated_duration_ms"] = int(entry.escalated_duration_ms or 0)
        out.append(outcome)
    if decided or refused:
        output = entry.output
        if output is None:  # the agent runs it after ShellGate answers: ShellGate says why
            output = "" if entry.approves else f"Rejected({entry.reason or entry.decision!r})"
        out.append({"event.name": "codex.tool_result", **base, "tool_result_seq": seq,
                    "tool_name": TOOL_NAME, "tool_namespace": "functions",
                    "call_id": entry.call_id, "duration_ms": str(int(entry.duration_ms)),
                    "success": "true" if entry.approves else "false",
                    "output_truncated": bool(entry.truncated), "agent_name": "/root",
                    "arguments": arguments(entry), "output": output,
                    "mcp_server": "", "mcp_server_origin": ""})  # fmt: skip
    return out


def metrics(entry: Entry, env: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """Counter increments (name, attributes), each by 1."""
    model = env.get("SHELLGATE_MODEL") or "unknown"
    base = {"app.version": __version__, "model": model, "originator": entry.agent,
            "session_source": SESSION_SOURCE.get(entry.agent, "exec"),
            "shellgate.agent": entry.agent}  # fmt: skip
    out: list[tuple[str, dict[str, Any]]] = []
    if entry.answerer == "person" and entry.asked and entry.decision != "cancelled":
        approved = entry.decision if entry.decision != "forbidden" else "denied"
        out.append(("codex.approval.requested",
                    {**base, "tool": "unified_exec", "approved": approved}))  # fmt: skip
    if entry.answerer == "hook" and entry.decision not in ("cancelled", "deferred"):
        out.append(("codex.hooks.run", {
            **base, "hook_name": entry.hook_event or "PermissionRequest", "source": "user",
            "status": HOOK_STATUS[entry.approves], "execution_mode": "sync",
            "handler_type": "command"}))  # fmt: skip
    return out


def span(entry: Entry, digest: str | None = None) -> dict[str, Any] | None:
    """Codex's trace-safe form: an `exec_command` span whose events carry lengths, never the
    command or its output; None where Codex's logs have nothing either."""
    if entry.decision in ("cancelled", "deferred"):
        return None
    attrs = {"call_id": entry.call_id, "tool_name": TOOL_NAME, "codex.tool.phase": "dispatch",
             "tool_source": "direct", "aborted": False, **ours(entry, digest)}  # fmt: skip
    attrs.pop("shellgate.reason", None)  # may quote the command
    attrs.pop("shellgate.amendment", None)
    events: list[tuple[str, dict[str, Any]]] = []
    for log in logs(entry, {}, digest):
        name = log["event.name"]
        keep = {k: v for k, v in log.items() if k in ("call_id", "tool_name", "decision",
                "source", "outcome", "initial_duration_ms", "escalated_duration_ms",
                "duration_ms", "success", "tool_namespace")}  # fmt: skip
        if name == "codex.tool_result":
            output = str(log["output"])
            keep.update({"arguments_length": len(str(log["arguments"])),
                         "output_length": len(output),
                         "output_line_count": len(output.splitlines()),
                         "tool_origin": "builtin", "mcp_tool": False})  # fmt: skip
        events.append((name, {"event.name": name, **keep}))
    return {"name": TOOL_NAME, "attributes": attrs, "events": events,
            "start": entry.time, "duration_ms": entry.duration_ms}  # fmt: skip


def resource(environment: str, host: str) -> dict[str, Any]:
    return {"service.name": SERVICE_NAME, "service.version": __version__, "env": environment,
            "host.name": host}  # fmt: skip
