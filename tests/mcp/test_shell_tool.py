"""`shellgate mcp` as a real process, driven by the MCP SDK's client over stdio: the tools and
their schemas, bad input, the chain (allowed, forbidden, sandboxed, approvals by elicitation on
both transports, escalation), progress and cancellation. No editor is open in these tests."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from mcp_helpers import (
    SHELLGATE,
    Elicitations,
    mcp_client,
    processes_with,
    server_env,
    text,
    write_rules,
)

pytestmark = pytest.mark.timeout(120)

RULES = """
prefix_rule(pattern=["rm"], decision="forbidden", justification="use trash instead of rm")
prefix_rule(pattern=["touch"], decision="prompt", justification="new files need a look")
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "codex-home"
    write_rules(h, RULES)
    return h


async def test_tools_schemas_and_bad_input(workspace: Path, home: Path) -> None:
    async with mcp_client(workspace, home, args=()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"shell", "approve"}
        shell = tools["shell"].input_schema
        assert shell["required"] == ["command"]
        assert {"type": "string"} in shell["properties"]["command"]["anyOf"]
        assert shell["properties"]["sandbox_permissions"]["enum"] == [
            "use_default", "require_escalated"]  # fmt: skip
        assert set(shell["properties"]) == {
            "command", "workdir", "timeout_ms", "justification", "sandbox_permissions"}
        assert tools["approve"].input_schema["required"] == ["tool_name", "input"]

        marker = workspace / "marker"
        bad = {
            "nope": ({"command": "touch marker"}, "Unknown tool: nope"),
            "shell": ({}, "command"),
        }
        for name, (args, says) in bad.items():
            result = await client.call_tool(name, args)
            assert result.is_error and says in text(result)
        cases = [
            ({"command": 5}, "command"),
            ({"command": "echo > marker", "timeout_ms": "soon"}, "timeout_ms"),
            ({"command": "echo > marker", "sandbox_permissions": "yolo"}, "sandbox_permissions"),
            ({"command": "echo > marker", "workdir": "/"}, "outside the workspace"),
            ({"command": "echo > marker", "workdir": "../"}, "outside the workspace"),
            ({"command": "   "}, "non-empty"),
            ({"command": []}, "non-empty"),
            ({"command": "echo > marker; " + "x" * (10 * 1024 * 1024)}, "the limit is"),
        ]
        for args, says in cases:
            result = await client.call_tool("shell", args)
            assert result.is_error, args
            assert says in text(result), (args, text(result)[:300])
            assert "nothing was run" in text(result) and "pydantic" not in text(result)
        assert not marker.exists()
        # the SDK's schema check, said plainly: what the argument must be, and what it was
        wrong = await client.call_tool("shell", {"command": 123})
        assert wrong.is_error and text(wrong) == (
            "invalid params for `shell`: `command` must be a string (a script, run as `bash "
            "-lc`) or a list of strings (an argv), not 123; nothing was run")
        # The server is still serving after all of it.
        ok = await client.call_tool("shell", {"command": ["echo", "still here"]})
        assert not ok.is_error and "still here" in text(ok)
        assert ok.structured_content is None  # text only, unless --structured


async def test_allowed_runs_sandboxed_forbidden_refused(
    workspace: Path, home: Path, outside: Path, probe: object
) -> None:
    (workspace / "keep").write_text("x")
    # A trusted project's rules load too, as in Codex.
    (home / "config.toml").write_text(f'[projects."{workspace}"]\ntrust_level = "trusted"\n')
    (workspace / ".codex" / "rules").mkdir(parents=True)
    (workspace / ".codex" / "rules" / "p.rules").write_text(
        'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="no pushing")\n')
    async with mcp_client(workspace, home) as client:
        ran = await client.call_tool("shell", {
            "command": f"echo inside > in.txt; echo hi; echo x > {outside}/out.txt"})  # fmt: skip
        body = text(ran)
        assert not ran.is_error
        assert body.startswith("Exit code: 1\n") and "hi\n" in body
        assert (workspace / "in.txt").read_text() == "inside\n"
        assert not (outside / "out.txt").exists()  # the sandbox stopped it, on disk
        data = ran.structured_content
        assert data["status"] == "completed" and data["sandboxed"] is True
        assert data["attempts"][0]["outcome"] == "fs-denied"

        refused = await client.call_tool("shell", {"command": "rm -rf keep"})
        assert refused.is_error
        assert "use trash instead of rm" in text(refused)
        assert refused.structured_content["status"] == "forbidden"
        assert (workspace / "keep").exists()
        push = await client.call_tool("shell", {"command": "git push origin main"})
        assert push.is_error and "no pushing" in text(push)
        # Needs approval, no editor, a client without elicitation: refused, saying why.
        nobody = await client.call_tool("shell", {"command": "touch asked.txt"})
        assert nobody.is_error and "nobody could be asked" in text(nobody)
        assert not (workspace / "asked.txt").exists()
        # A broken rules file refuses everything, with its file, line and column.
        (home / "rules" / "default.rules").write_text('prefix_rule(pattern=["ls"], decision=)\n')
        broken = await client.call_tool("shell", {"command": "echo hi > b.txt"})
        assert broken.is_error and "the rules cannot be read" in text(broken)
        assert f"{home}/rules/default.rules:1:" in text(broken), text(broken)
        assert not (workspace / "b.txt").exists()


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # 2025-11-25 mid-call; 2026-07-28 resolver
async def test_approval_by_elicitation(
    workspace: Path, home: Path, probe: object, mode: str
) -> None:
    elicit = Elicitations([("accept", 0), ("decline", None), ("cancel", None), ("accept", 1)])
    async with mcp_client(workspace, home, mode=mode, elicit=elicit) as client:
        yes = await client.call_tool("shell", {"command": "touch yes.txt"})
        assert not yes.is_error and (workspace / "yes.txt").exists()
        no = await client.call_tool("shell", {"command": "touch no.txt"})
        cancel = await client.call_tool("shell", {"command": "touch cancel.txt"})
        for refused in (no, cancel):
            assert refused.is_error and "was not run" in text(refused)
        assert "declin" in text(no) and "cancel" in text(cancel)
        assert not (workspace / "no.txt").exists() and not (workspace / "cancel.txt").exists()
        # "Yes, and don't ask again for this command in this session": asked once, runs twice.
        for _ in range(2):
            again = await client.call_tool("shell", {"command": "touch again.txt"})
            assert not again.is_error
    assert len(elicit.asked) == 4
    first = elicit.asked[0]
    assert "title" not in first.requested_schema  # Codex cancels a form with a top-level title
    assert "touch yes.txt" in first.message and "new files need a look" in first.message
    labels = first.requested_schema["properties"]["decision"]["enum"]
    assert labels[0] == "Yes, proceed" and "No, continue without running it" in labels


async def test_escalation_after_a_sandbox_denial(
    workspace: Path, home: Path, outside: Path, probe: object
) -> None:
    """on-failure: the sandbox denies, then ShellGate asks to retry without it, as Codex does."""
    elicit = Elicitations([("accept", 0), ("decline", None)])
    args = ["--structured", "--approval-policy", "on-failure"]
    async with mcp_client(workspace, home, elicit=elicit, args=args) as client:
        ok = await client.call_tool("shell", {"command": f"echo x > {outside}/yes.txt"})
        assert not ok.is_error and (outside / "yes.txt").read_text() == "x\n"
        # The narrowest retry: still sandboxed, with the denied folder writable.
        first, retry = ok.structured_content["attempts"]
        assert first["outcome"] == "fs-denied" and retry["outcome"] == "ok"
        assert retry["permission"] == f"sandbox + writable {outside}"
        no = await client.call_tool("shell", {"command": f"echo x > {outside}/no.txt"})
        assert no.is_error and "retrying with more permission was refused" in text(no)
        assert not (outside / "no.txt").exists()
    assert f"retry with {outside} writable?" in elicit.asked[0].message


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_require_escalated_is_asked_first(
    workspace: Path, home: Path, outside: Path, probe: object, mode: str
) -> None:
    """on-request: the model asks for no sandbox with a justification; the user is asked."""
    elicit = Elicitations([("accept", 0)])
    async with mcp_client(workspace, home, mode=mode, elicit=elicit) as client:
        ok = await client.call_tool("shell", {
            "command": f"echo x > {outside}/esc.txt", "sandbox_permissions": "require_escalated",
            "justification": "Write the report outside the workspace?"})  # fmt: skip
        assert not ok.is_error, text(ok)
        assert (outside / "esc.txt").exists()
        assert ok.structured_content["sandboxed"] is False
    assert "Write the report outside the workspace?" in elicit.asked[0].message


async def test_progress_then_cancel_leaves_no_process(
    workspace: Path, home: Path, probe: object
) -> None:
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async with mcp_client(workspace, home) as client:
        slow = await client.call_tool("shell", {"command": "sleep 2.5; echo done"},
                                      progress_callback=on_progress)  # fmt: skip
        assert "done" in text(slow)
        assert seen and "sleep 2.5" in (seen[0][1] or "")
        token = "61.4242"
        call = asyncio.ensure_future(client.call_tool("shell", {"command": f"sleep {token}"}))
        for _ in range(100):
            if processes_with(f"sleep {token}"):
                break
            await asyncio.sleep(0.1)
        assert processes_with(f"sleep {token}")
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        for _ in range(50):
            if not processes_with(f"sleep {token}"):
                break
            await asyncio.sleep(0.1)
        assert processes_with(f"sleep {token}") == []
        still = await client.call_tool("shell", {"command": ["echo", "alive"]})
        assert "alive" in text(still)


async def test_disconnect_mid_command_leaves_no_process(
    workspace: Path, home: Path, probe: object
) -> None:
    """A client that goes away (stdin closed) mid-command: the command is stopped, the server
    exits."""
    env = {**os.environ, **server_env(workspace.parent)}
    proc = await asyncio.create_subprocess_exec(
        *SHELLGATE, "mcp", "--workspace", str(workspace), "--codex-home", str(home),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    token = "62.5151"
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "shell", "arguments": {"command": f"sleep {token}"}}},
    ):  # fmt: skip
        proc.stdin.write((json.dumps(message) + "\n").encode())
    await proc.stdin.drain()
    assert json.loads(await proc.stdout.readline())["id"] == 1
    for _ in range(100):
        if processes_with(f"sleep {token}"):
            break
        await asyncio.sleep(0.1)
    assert processes_with(f"sleep {token}")
    proc.stdin.close()
    assert await asyncio.wait_for(proc.wait(), 20) is not None
    await asyncio.sleep(0.3)
    assert processes_with(f"sleep {token}") == []
