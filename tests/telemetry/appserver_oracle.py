"""Run the real `codex app-server` once, offline, with `[otel]` exporting to a receiver in the
same network namespace, and answer its approval questions from a script: what Codex exports
when a person accepts, accepts for the session, or declines.

Usage (by the tests): unshare -rn python appserver_oracle.py CONFIG.json RESULT.json
CONFIG: {"codex": path, "home": CODEX_HOME (its config.toml's [otel] names 127.0.0.1:4318),
         "ws": folder, "approvalPolicy": ..., "commands": [...], "answers": [...]}
RESULT: {"posts": [receiver posts], "approvals": n, "rc": exit status}
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from receiver import Receiver

from shellgate.agent.standin import StandIn

PROVIDER = '{name="standin",base_url="URL",wire_api="responses"}'


async def run(config: dict[str, Any], receiver: Receiver) -> dict[str, Any]:
    standin = StandIn([{"tool": "<auto>", "command": c} for c in config["commands"]]
                      + [{"text": "done"}] * 3)  # fmt: skip
    url = standin.start()
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "HOME", "TMPDIR")}
    env.update(CODEX_HOME=config["home"], RUST_LOG="warn", NO_COLOR="1")
    argv = [config["codex"], "app-server", "-c", "model_provider=standin",
            "-c", "model_providers.standin=" + PROVIDER.replace("URL", url),
            "-c", "model=stand-in", "-c", "check_for_update_on_startup=false",
            "-c", "analytics.enabled=false"]  # fmt: skip
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env, cwd=config["ws"], limit=1 << 24)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    answers = list(config["answers"])
    pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
    done = asyncio.Event()
    asked = 0

    async def send(msg: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        await proc.stdin.drain()

    async def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
        rid = len(pending) + 1
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        pending[rid] = fut
        await send({"id": rid, "method": method, "params": params})
        return await asyncio.wait_for(fut, 120)  # a cold binary takes seconds to read

    async def reader() -> None:
        nonlocal asked
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            msg = json.loads(line)
            if "id" in msg and "method" not in msg:
                if msg["id"] in pending and not pending[msg["id"]].done():
                    pending[msg["id"]].set_result(msg)
                continue
            if "id" in msg:  # a question to the client
                if "requestApproval" in str(msg.get("method")):
                    asked += 1
                    answer = answers.pop(0) if answers else "cancel"
                    await send({"id": msg["id"], "result": {"decision": answer}})
                else:
                    await send({"id": msg["id"], "error": {"code": -32601, "message": "no"}})
            elif msg.get("method") == "turn/completed":
                done.set()
        done.set()

    task = asyncio.create_task(reader())
    await request("initialize", {"clientInfo": {"name": "sg_oracle", "title": "t",
                                                "version": "0"}})  # fmt: skip
    await send({"method": "initialized"})
    params = {"cwd": config["ws"], "ephemeral": True, "sandbox": "workspace-write",
              "approvalPolicy": config["approvalPolicy"]}  # fmt: skip
    thread = await request("thread/start", params)
    await request("turn/start", {"threadId": thread["result"]["thread"]["id"],
                                 "input": [{"type": "text", "text": "run it"}]})  # fmt: skip
    await asyncio.wait_for(done.wait(), 120)
    proc.stdin.close()  # the app-server exports what it has when its stdin closes
    rc = await asyncio.wait_for(proc.wait(), 60)
    task.cancel()
    standin.stop()
    return {"approvals": asked, "rc": rc}


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    receiver = Receiver(4318)
    result = asyncio.run(run(config, receiver))
    result["posts"] = receiver.posts
    receiver.close()
    Path(sys.argv[2]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
