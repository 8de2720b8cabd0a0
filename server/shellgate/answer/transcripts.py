"""What the reviewer reads of the conversation so far, as transcript entries (Codex's compact
transcript: the user's words, the agent's, its tool calls and their results): from the
embedded agent's history, or from an outside agent's own transcript file."""

from __future__ import annotations

import json
from collections.abc import Sequence

from shellgate.agent.history import AssistantMessage, Message, ToolResult, UserMessage
from shellgate.answer.review_request import Entry

TAIL_BYTES = 2_000_000  # of an outside agent's transcript file: its recent part


def from_history(history: Sequence[Message]) -> list[Entry]:
    names: dict[str, str] = {}
    out: list[Entry] = []
    for m in history:
        if isinstance(m, UserMessage):
            out.append(Entry("user", m.text))
        elif isinstance(m, AssistantMessage):
            if m.text:
                out.append(Entry("assistant", m.text))
            for call in m.tool_calls:
                names[call.call_id] = call.name
                out.append(Entry("tool_call", call.arguments, call.name))
        elif isinstance(m, ToolResult):
            out.append(Entry("tool_result", m.output, names.get(m.call_id, "exec_command")))
    return out


def from_agent_file(path: str | None) -> list[Entry]:
    """An outside agent's transcript (`transcript_path`: Claude Code's JSONL, one message a
    line): the user's words and the agent's text and tool calls. Unreadable: nothing."""
    if not path:
        return []
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - TAIL_BYTES))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    out: list[Entry] = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        if isinstance(content, str):
            if role in ("user", "assistant"):
                out.append(Entry(role, content))
            continue
        for part in content if isinstance(content, list) else []:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and role in ("user", "assistant"):
                out.append(Entry(role, str(part.get("text", ""))))
            elif kind == "tool_use":
                out.append(Entry("tool_call", json.dumps(part.get("input"), ensure_ascii=False),
                                 str(part.get("name", "tool"))))  # fmt: skip
            elif kind == "tool_result":
                text = part.get("content")
                if isinstance(text, list):
                    text = "".join(str(t.get("text", "")) for t in text if isinstance(t, dict))
                out.append(Entry("tool_result", str(text or "")))
    return out


def typed_command(script: str) -> list[Entry]:
    """`shellgate run -- CMD`: the person typed the command themselves."""
    return [Entry("user", f"(typed at the terminal) shellgate run -- {script}")]
