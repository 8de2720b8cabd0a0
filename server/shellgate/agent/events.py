"""Agent events in the vocabulary of Codex's app-server (thread / turn / item notifications),
and the JSON-lines transcript that records them.

Methods used: `thread/started`, `turn/started`, `turn/completed`, `item/started`,
`item/completed`, `item/agentMessage/delta`, `item/commandExecution/outputDelta`, `error`.
ShellGate additions: `model/request` (the body sent, never the key), `model/retry`,
`item/commandExecution/approval` (who decided what) and the item type `invalidToolCall`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

EventSink = Callable[[str, dict[str, Any]], None]


def fanout(*sinks: EventSink) -> EventSink:
    def emit(method: str, params: dict[str, Any]) -> None:
        for sink in sinks:
            sink(method, params)
    return emit


class Transcript:
    """Appends one JSON object per event: {"ts", "method", "params"}."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path = path
        # Commands' output can hold secrets: the transcript is the user's alone.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._file: TextIO = os.fdopen(fd, "a", encoding="utf-8")
        self._lock = threading.Lock()

    def __call__(self, method: str, params: dict[str, Any]) -> None:
        line = json.dumps({"ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
                           "method": method, "params": params}, ensure_ascii=False)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        self._file.close()


def default_transcript_path(thread_id: str) -> Path:
    """$XDG_STATE_HOME/shellgate/transcripts/<time>-<thread>.jsonl (~/.local/state by default)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(state) / "shellgate" / "transcripts" / f"{stamp}-{thread_id}.jsonl"
