"""The record read back for the editor: the questions people answered ("Show Approvals" lists
them next to the desk's live questions, so its history survives a restart of the editor), and
every decision, whoever made it (the History view)."""

from __future__ import annotations

from shellgate.record import verify
from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

# the record's decision -> the broker's answer name (rules-schema/broker.schema.json)
WIRE = {"approved": "accept", "approved_for_session": "acceptForSession",
        "approved_with_amendment": "acceptWithExecpolicyAmendment", "denied": "decline",
        "cancelled": "cancel"}  # fmt: skip


def answered(before: float, limit: int, folder: str | None = None) -> list[dict[str, Any]]:
    """The last `limit` questions put to a person before `before` (epoch seconds), oldest
    first, in the shape of `broker.desk.Entry.to_json`."""
    out: list[dict[str, Any]] = []
    for seq, e in _entries(folder):
        if not e.get("asked") or float(e.get("time") or 0) >= before:
            continue
        when = float(e.get("time") or 0)
        rule = e.get("rule") or {}
        out.append({
            "id": f"record-{seq}", "agent": e.get("agent"), "agentName": e.get("agent"),
            "sessionId": e.get("session_id"), "command": [e.get("command", "")],
            "cwd": e.get("cwd", ""), "state": "answered",
            "decision": rule.get("decision") or "prompt", "reason": e.get("reason"),
            "answer": WIRE.get(str(e.get("decision")), "decline"), "message": e.get("verdict"),
            "amendmentWritten": e.get("amendment"), "askedAt": when,
            "answeredAt": when + int(e.get("duration_ms") or 0) / 1000, "recorded": True,
        })  # fmt: skip
        _keep(out, limit)
    return out[-limit:] if limit > 0 else []


def decisions(limit: int, folder: str | None = None) -> list[dict[str, Any]]:
    """The last `limit` decisions of the record, newest last, as the editor's History view
    takes them: who, the command, the decision and who answered, the deciding rule's file and
    line, the amendment written."""
    out: list[dict[str, Any]] = []
    for seq, e in _entries(folder):
        rule = e.get("rule") if isinstance(e.get("rule"), dict) else None
        where = None
        if rule and rule.get("file"):
            where = {"path": str(rule["file"]), "line": int(rule.get("line") or 1),
                     "pattern": rule.get("pattern")}  # fmt: skip
        out.append({
            "id": f"record-{seq}", "at": float(e.get("time") or 0),
            "agent": str(e.get("agent") or ""), "text": str(e.get("command") or ""),
            "cwd": str(e.get("cwd") or ""), "decision": str(e.get("decision") or ""),
            "answerer": str(e.get("answerer") or ""), "reason": e.get("reason"),
            "verdict": e.get("verdict"), "rule": where, "amendment": e.get("amendment"),
        })  # fmt: skip
        _keep(out, limit)
    return out[-limit:] if limit > 0 else []


def _entries(folder: str | None) -> Iterator[tuple[int | None, dict[str, Any]]]:
    """Each decision of the record with its line's number; lines that are not one skipped."""
    for line in verify.lines(folder):
        data = line.entry
        if data is not None and isinstance(data.get("entry"), dict):
            yield line.seq, data["entry"]


def _keep(out: list[dict[str, Any]], limit: int) -> None:
    if len(out) > 4 * limit:  # a long log: keep what can still be shown
        del out[: len(out) - limit]
