"""However `shellgate serve` ends (SIGTERM, SIGINT, SIGHUP, its editor gone), its discovery file
and socket go with it, and a hook then takes its no-editor fallback at once. The real process,
driven over stdio with hand-written LSP frames."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import IO, Any

import pytest

from shellgate.broker import client as broker
from shellgate.broker.discovery import ServerInfo, find_server

from .conftest import World


def frame(body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(data), data)


def serve(world: World) -> tuple[subprocess.Popen[bytes], ServerInfo]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellgate", "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    stdin: IO[bytes] = proc.stdin  # type: ignore[assignment]
    params = {"processId": os.getpid(), "capabilities": {},
              "workspaceFolders": [{"uri": world.project.as_uri(), "name": "p"}],
              "initializationOptions": {"codexHome": str(world.home)}}  # fmt: skip
    stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
    stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    stdin.flush()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        info = find_server(str(world.project))
        if info is not None and info.pid == proc.pid:
            return proc, info
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no discovery file: {proc.communicate()[1].decode()[-2000:]}")


def hook(world: World) -> tuple[dict[str, Any], float]:
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s1",
             "cwd": str(world.project),
             "tool_input": {"command": "git push origin main"}}  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", "hook", "claude-code"],
        input=json.dumps(event), capture_output=True, text=True, timeout=60, cwd=world.project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), time.monotonic() - started


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGHUP", "stdin closed"])
def test_the_server_takes_its_discovery_file_and_socket_with_it(world: World, how: str) -> None:
    proc, info = serve(world)
    assert broker.hello(info) is not None  # listening, found by the hooks
    if how == "stdin closed":  # the editor went away without a word
        proc.stdin.close()  # type: ignore[union-attr]
    else:
        proc.send_signal(getattr(signal, how))
    code = proc.wait(20)
    # Killed by the signal, as before: the cleanup does not hide how it ended.
    assert code == (0 if how == "stdin closed" else -getattr(signal, how)), code
    assert not os.path.exists(info.path) and not os.path.exists(info.socket)
    assert os.listdir(world.runtime / "shellgate") == []
    answer, seconds = hook(world)
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "ask"  # Claude Code's own prompt: the fallback
    assert "no editor is reachable" in out["permissionDecisionReason"]
    assert seconds < 20  # (the ask timeout is 300 s: nothing waited on a dead server)


def test_only_its_own_files_are_removed(world: World) -> None:
    """The file only while it names this process (a forked child exiting, a file rewritten by
    another server), the socket only while it is the one this process bound (its inode)."""
    import socket

    from shellgate.broker import discovery as d


    folder, pid = d.ensure_runtime_dir(), os.getpid()
    info = ServerInfo(pid, (str(world.project),), d.socket_path(folder, pid), "t", 1,
                      d.info_path(folder, pid))  # fmt: skip
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(info.socket)
        inode = os.lstat(info.socket).st_ino
        d.write_info(info)
        d.remove_own(info._replace(pid=pid + 1), inode)  # not this process: nothing goes
        assert os.path.exists(info.path) and os.path.exists(info.socket)
        d.remove_own(info, inode + 1)  # another socket now under that name: it stays
        assert not os.path.exists(info.path) and os.path.exists(info.socket)
        d.write_info(info._replace(pid=1))  # the name, but another process's file
        d.remove_own(info, inode)
        assert os.path.exists(info.path) and not os.path.exists(info.socket)
