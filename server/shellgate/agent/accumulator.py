"""Assemble streamed Chat Completions tool-call deltas into whole calls, quirks included.

Local servers break the protocol in two known ways: Ollama before 0.4.7 sent no `index`
(ollama#7881) and later versions send every parallel call at index 0 (ollama#15457, #15497).
The openai SDK's helper then merges two calls into one (`{"command": "ls a"}{"command": "ls b"}`)
or crashes. Rule here: a chunk that carries a *new* id starts a new call, whatever its index;
a chunk without an id continues the call at its index (or the last call when it has none).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shellgate.agent.history import ToolCall


@dataclass
class _Slot:
    call_id: str | None = None
    name: str = ""
    arguments: str = ""


@dataclass
class ToolCallAccumulator:
    _slots: list[_Slot] = field(default_factory=list)
    _by_index: dict[int, int] = field(default_factory=dict)  # wire index -> slot position

    def feed(self, delta: dict[str, Any]) -> None:
        index = delta.get("index")
        call_id = delta.get("id") or None
        pos = self._by_index.get(index) if isinstance(index, int) else None
        if pos is None and index is None and not call_id and self._slots:
            pos = len(self._slots) - 1  # no index, no id: a continuation of the last call
        if pos is not None and call_id and self._slots[pos].call_id not in (None, call_id):
            pos = None  # a new id at a used index: a new call (the index-0 quirk)
        if pos is None:
            self._slots.append(_Slot())
            pos = len(self._slots) - 1
        if isinstance(index, int):
            self._by_index[index] = pos
        slot = self._slots[pos]
        slot.call_id = slot.call_id or call_id
        function = delta.get("function") or {}
        slot.name += function.get("name") or ""
        slot.arguments += function.get("arguments") or ""

    def calls(self, id_prefix: str) -> tuple[ToolCall, ...]:
        """The calls, in order; a call the server gave no id gets `<id_prefix>_<n>`."""
        return tuple(ToolCall(s.call_id or f"{id_prefix}_{n}", s.name, s.arguments)
                     for n, s in enumerate(self._slots))
