"""A private runtime folder, a Codex home with rules, a project; an endpoint run in a thread."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from shellgate.broker.decide import decide
from shellgate.broker.endpoint import Endpoint, OnAsk, decide_in_thread
from shellgate.broker.protocol import AgentAnswer, AgentDecision, AgentRequest

SCHEMA = json.loads((Path(__file__).parents[2] / "rules-schema" / "broker.schema.json").read_text())
RULES = """\
prefix_rule(pattern=["git", "status"], decision="allow", justification="read-only git")
prefix_rule(pattern=["git", "push"], decision="prompt", justification="publishing needs a human")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden",
            justification="recursive deletion is never automatic")
"""


def validate(definition: str, instance: Any) -> None:
    """`instance` against broker.schema.json#/definitions/<definition>."""
    jsonschema.validate(instance, {**SCHEMA, "$ref": f"#/definitions/{definition}"})


class World:
    def __init__(self, root: Path, runtime: Path) -> None:
        self.runtime = runtime
        self.home = root / "codex-home"
        (self.home / "rules").mkdir(parents=True)
        (self.home / "rules" / "default.rules").write_text(RULES)
        self.project = root / "project"
        (self.project / ".git").mkdir(parents=True)

    def request(self, command: str | tuple[str, ...], agent: str = "claude-code",
                **kw: Any) -> AgentRequest:  # fmt: skip
        return AgentRequest(agent, kw.pop("session_id", "s-1"), str(self.project), command, **kw)

    def decided(self, request: AgentRequest) -> AgentDecision:
        """The decision a hook carries to the editor with its question."""
        return decide(request, codex_home=self.home)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    # Short: a Unix socket path holds at most 107 bytes, and pytest's tmp_path can be longer.
    runtime = Path(tempfile.mkdtemp(prefix="sgb-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    w = World(tmp_path, runtime)
    monkeypatch.setenv("CODEX_HOME", str(w.home))
    yield w
    shutil.rmtree(runtime, ignore_errors=True)


async def accept_all(request: AgentRequest, decision: AgentDecision, timeout: float
                     ) -> AgentAnswer:  # fmt: skip
    return AgentAnswer("accept", f"yes to {request.agent}")


@contextmanager
def running(folders: list[str], on_ask: OnAsk = accept_all,
            on_reviewed: Any = None) -> Iterator[Endpoint]:
    """An endpoint on its own event loop in a thread, as a language server runs it."""
    loop = asyncio.new_event_loop()
    endpoint = Endpoint(folders, on_decide=decide_in_thread, on_ask=on_ask, version="test",
                        on_reviewed=on_reviewed)  # fmt: skip
    started = threading.Event()

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(endpoint.start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    assert started.wait(10)
    endpoint.loop = loop  # type: ignore[attr-defined]
    try:
        yield endpoint
    finally:
        asyncio.run_coroutine_threadsafe(endpoint.aclose(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def raw(path: str, line: bytes, *, timeout: float = 10) -> Any:
    """Send one line, read one reply line (None when the server closes without a word)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(line)
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                return None
            buf += chunk
    return json.loads(buf)


def mode(path: str | Path) -> int:
    return os.stat(path).st_mode & 0o777
