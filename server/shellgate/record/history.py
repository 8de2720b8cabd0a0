"""The questions people answered, from the record: the editor's "Show Approvals" lists them
next to the desk's live questions, so its history survives a restart of the editor."""

from __future__ import annotations

from shellgate.record import verify
from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

# the record's decision -> the broker's answer name (rules-schema/broker.schema.json)
WIRE = {"approved": "accept", "approved_for_session": "acceptForSession",
        "approved_with_amendment": "acceptWithExecpolicyAmendment", "denied": "decline",
        "cancelled": "cancel"}  # fmt: skip


def answered(before: float, limit: int, folder: str | None = None) -> list[dict[str, Any]]:
    """The last `limit` questions put to a person before `before` (epoch seconds), oldest
    first, in the shape of `broker.desk.Entry.to_json`."""
    out: list[dict[str, Any]] = []
    for line in verify.lines(folder):
        data = line.entry
        if data is None or not isinstance(data.get("entry"), dict):
            continue
        e = data["entry"]
        if not e.get("asked") or float(e.get("time") or 0) >= before:
            continue
        when = float(e.get("time") or 0)
        rule = e.get("rule") or {}
        out.append({
            "id": f"record-{line.seq}", "agent": e.get("agent"), "agentName": e.get("agent"),
            "sessionId": e.get("session_id"), "command": [e.get("command", "")],
            "cwd": e.get("cwd", ""), "state": "answered",
            "decision": rule.get("decision") or "prompt", "reason": e.get("reason"),
            "answer": WIRE.get(str(e.get("decision")), "decline"), "message": e.get("verdict"),
            "amendmentWritten": e.get("amendment"), "askedAt": when,
            "answeredAt": when + int(e.get("duration_ms") or 0) / 1000, "recorded": True,
        })  # fmt: skip
    return out[-limit:] if limit > 0 else []
