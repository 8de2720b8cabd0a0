"""Play one scenario through the real `codex app-server`, offline, as the recipes do
(../shared/recipes/auto-review/run_appserver.sh, ../shared/recipes/hooks-otel/trial.py): run
inside `unshare -rnm` by tests/etc_overlay.py (loopback only; a scratch folder bound on
/etc/codex over a private overlay of /etc), against the recipe's stand-in (standin/
standin_review.py: the main model's script and the reviewer's, every request logged with its
role); the person's answers to Codex's approval questions come from a list.

Usage (by oracle.py): python codex_play.py CONFIG.json RESULT.json
CONFIG: {"codex", "home" (CODEX_HOME), "ws", "out", "main": [...], "review": [...],
         "thread": {thread/start params beyond cwd}, "decisions": [...], "args": [...],
         "prompt", "timeout"}
RESULT: {"asked": [{"method", "command", "reason"}], "items": [{"type", "status", "exitCode"}],
         "turns": [status], "notes": [warning notifications], "thread_error", "stderr"}
(the stand-in's log is OUT/requests.jsonl)
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

STANDIN = Path(__file__).with_name("standin") / "standin_review.py"
PROVIDER = '{name="standin",base_url="http://127.0.0.1:PORT/v1",wire_api="responses"}'
ASKS = ("item/commandExecution/requestApproval", "execCommandApproval",
        "item/fileChange/requestApproval", "applyPatchApproval")  # fmt: skip
NOTES = ("warning", "configWarning", "guardianWarning", "error")


async def play(cfg: dict[str, Any], port: int) -> dict[str, Any]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": cfg["out"], "NO_COLOR": "1",
           "CODEX_HOME": cfg["home"], "RUST_LOG": "warn"}  # fmt: skip
    argv = [cfg["codex"], "app-server", "-c", "model_provider=standin",
            "-c", "model_providers.standin=" + PROVIDER.replace("PORT", str(port)),
            "-c", "model=stand-in", "-c", "check_for_update_on_startup=false",
            "-c", "analytics.enabled=false", *cfg.get("args", [])]  # fmt: skip
    stderr = open(Path(cfg["out"]) / "appserver.stderr", "w")  # noqa: SIM115 (the process's)
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr,
        env=env, cwd=cfg["ws"], limit=1 << 24, start_new_session=True)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    decisions = list(cfg.get("decisions", []))
    out: dict[str, Any] = {"asked": [], "items": [], "turns": [], "notes": [], "methods": []}
    pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
    done = asyncio.Event()
    ids = itertools.count(1)

    async def send(msg: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        await proc.stdin.drain()

    async def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
        rid = next(ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        pending[rid] = fut
        await send({"id": rid, "method": method, "params": params})
        return await asyncio.wait_for(fut, 120)  # a cold binary takes seconds to read

    async def reader() -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            msg = json.loads(line)
            method, params = msg.get("method"), msg.get("params") or {}
            out["methods"].append(method if method != "item/completed" else
                                  method + ":" + str((params.get("item") or {}).get("type")))
            if "id" in msg and method is None:
                fut = pending.get(msg["id"])
                if fut is not None and not fut.done():
                    fut.set_result(msg)
            elif "id" in msg and method in ASKS:
                answer: Any = decisions.pop(0) if decisions else "decline"
                if answer == "amend":
                    answer = {"acceptWithExecpolicyAmendment": {
                        "execpolicy_amendment": params.get("proposedExecpolicyAmendment") or []}}
                out["asked"].append({"method": method, "command": params.get("command"),
                                     "reason": params.get("reason")})  # fmt: skip
                await send({"id": msg["id"], "result": {"decision": answer}})
            elif "id" in msg:
                await send({"id": msg["id"], "error": {"code": -32601, "message": "no"}})
            elif method == "item/completed":
                item = params.get("item") or {}
                if item.get("type") in ("commandExecution", "fileChange"):
                    out["items"].append({k: item.get(k) for k in ("type", "status", "exitCode")})
            elif method == "turn/completed":
                out["turns"].append((params.get("turn") or {}).get("status"))
                done.set()
            elif method in NOTES:
                out["notes"].append(msg)
        for fut in pending.values():  # the app-server is gone (it refused to start)
            if not fut.done():
                fut.set_result({"error": {"message": "the app-server exited"}})
        done.set()

    task = asyncio.create_task(reader())
    try:
        await request("initialize", {"clientInfo": {"name": "shellgate_oracle", "title": "t",
                                     "version": "0"}})  # fmt: skip
        await send({"method": "initialized"})
        th = await request("thread/start", {"cwd": cfg["ws"], "ephemeral": True,
                                            **cfg.get("thread", {})})  # fmt: skip
        if "error" in th:
            out["thread_error"] = th["error"].get("message")
        else:
            thread = th["result"]["thread"]["id"]
            await request("turn/start", {"threadId": thread, "input": [
                {"type": "text", "text": cfg["prompt"]}]})  # fmt: skip
            await asyncio.wait_for(done.wait(), cfg.get("timeout", 60))
    except TimeoutError:
        out["timeout"] = True
    proc.stdin.close()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
    task.cancel()
    stderr.close()
    out["stderr"] = (Path(cfg["out"]) / "appserver.stderr").read_text(errors="replace")[-4000:]
    return out


def main() -> None:
    cfg = json.loads(Path(sys.argv[1]).read_text())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    out = Path(cfg["out"])
    for name in ("main", "review"):
        (out / f"{name}.json").write_text(json.dumps(cfg[name]))
    standin = subprocess.Popen(
        [sys.executable, str(STANDIN), str(out / "main.json"), str(out / "review.json"),
         str(out / "requests.jsonl"), str(out / "port")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    for _ in range(200):
        if (out / "port").exists() and (out / "port").read_text().strip():
            break
        time.sleep(0.025)
    try:
        result = asyncio.run(play(cfg, int((out / "port").read_text())))
    finally:
        standin.kill()
        standin.wait()
    Path(sys.argv[2]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
