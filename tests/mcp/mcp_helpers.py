"""The real `shellgate mcp` process driven by the MCP SDK's client over stdio, in a throwaway
workspace and Codex home (no editor: XDG_RUNTIME_DIR is an empty folder of the test's)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
from lsprotocol import types as T
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from pytest_lsp import LanguageClient

from shellgate.broker.discovery import find_server

SHELLGATE = [sys.executable, "-m", "shellgate"]
# One private runtime folder for the editors (language servers) of these tests and their peers.
RUNTIME = Path(tempfile.mkdtemp(prefix="sgmcp-", dir="/tmp"))
SERVER = [sys.executable, "-m", "shellgate", "serve"]


def _plain(obj: Any) -> Any:
    if hasattr(obj, "_asdict"):
        return {k: _plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


async def open_editor(client: LanguageClient, workspace: Path, home: Path,
                       answers: list[dict[str, str]]) -> list[dict[str, Any]]:  # fmt: skip
    asked: list[dict[str, Any]] = []

    @client.feature("shellgate/approve")
    def approve(params: Any) -> dict[str, str]:
        asked.append(_plain(params))
        return answers.pop(0)

    await client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(experimental={"shellgate": {"approve": True}}),
        workspace_folders=[T.WorkspaceFolder(workspace.as_uri(), "ws")],
        initialization_options={"codexHome": str(home)}))  # fmt: skip
    os.environ["XDG_RUNTIME_DIR"] = str(RUNTIME)
    for _ in range(100):  # the broker starts on `initialized`
        if find_server(str(workspace)) is not None:
            return asked
        await asyncio.sleep(0.05)
    raise AssertionError("the editor never registered its broker")



@dataclass
class Elicitations:
    """Answers elicitations from a script: each answer is (action, label index or None)."""

    answers: list[tuple[str, int | None]] = field(default_factory=list)
    asked: list[types.ElicitRequestParams] = field(default_factory=list)

    async def __call__(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params)
        action, index = self.answers.pop(0) if self.answers else ("cancel", None)
        if action != "accept":
            return types.ElicitResult(action=action)
        labels = params.requested_schema["properties"]["decision"]["enum"]
        return types.ElicitResult(action="accept", content={"decision": labels[index or 0]})


def server_env(tmp: Path, runtime: Path | None = None) -> dict[str, str]:
    if runtime is None:  # a private, empty runtime folder: no editor to be found
        runtime = tmp / "runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
    return {"XDG_RUNTIME_DIR": str(runtime), "XDG_CACHE_HOME": str(tmp / "cache"),
            "PYTHONPATH": os.pathsep.join(sys.path)}  # fmt: skip


def write_rules(codex_home: Path, text: str) -> None:
    (codex_home / "rules").mkdir(parents=True, exist_ok=True)
    (codex_home / "rules" / "default.rules").write_text(text)


@contextlib.asynccontextmanager
async def mcp_client(
    workspace: Path, codex_home: Path, *, mode: str = "legacy",
    elicit: Callable[..., Any] | None = None, args: Sequence[str] = ("--structured",),
    runtime: Path | None = None,
) -> AsyncIterator[Client]:  # fmt: skip
    params = StdioServerParameters(
        command=SHELLGATE[0],
        args=[*SHELLGATE[1:], "mcp", "--workspace", str(workspace), "--codex-home",
              str(codex_home), *args],
        env=server_env(workspace.parent, runtime), cwd=str(workspace))  # fmt: skip
    async with Client(params, mode=mode, elicitation_callback=elicit) as client:
        yield client


def text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def processes_with(token: str) -> list[int]:
    """Live processes whose command line holds `token` (zombies excluded)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token in cmdline and state != "Z" and int(pid) != os.getpid():
            found.append(int(pid))
    return found
