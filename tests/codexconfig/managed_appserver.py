"""Run the real `codex app-server` with a scratch folder as `/etc/codex`, offline.

Usage (by the tests): unshare -rmn python managed_appserver.py CONFIG.json RESULT.json

Inside the private user + mount + network namespace: loopback up, an overlay over /etc whose
upper layer is scratch (so `/etc/codex` can exist without touching the machine's /etc: this
machine has none to bind over), the scratch system folder bound on `/etc/codex`, then one
app-server for the whole set-up and one thread per case, each on a fresh script of the
stand-in model (`shellgate.agent.standin`): the model runs the case's command with Codex's
shell tool, approvals are answered `cancel`.

Then, when asked, ShellGate's `explain --json` and `hook claude-code` for each case, in the
same namespace (so they read the same /etc/codex).

CONFIG: {"codex": path, "system": folder, "home": CODEX_HOME, "ws": folder, "scratch": folder,
         "cases": [{"approvalPolicy", "sandbox", "command"}], "timeout": seconds,
         "shellgate": bool}
RESULT: {"startup": {"rc", "stderr"} | null, "cases": [{"thread_error", "effective",
         "approvals", "items", "outputs", "warnings"}], "shellgate": [{"explain", "hook"}]}
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from shellgate.agent.standin import StandIn

PROVIDER = '{name="standin",base_url="URL",wire_api="responses"}'


def mount_system(system: str, scratch: str) -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    upper, work = os.path.join(scratch, "upper"), os.path.join(scratch, "work")
    os.makedirs(upper, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    opts = f"lowerdir=/etc,upperdir={upper},workdir={work}"
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o", opts, "/etc"], check=True)
    os.makedirs("/etc/codex", exist_ok=True)
    subprocess.run(["mount", "--bind", system, "/etc/codex"], check=True)


async def run(config: dict[str, Any]) -> dict[str, Any]:
    standin = StandIn([])
    url = standin.start()
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "HOME", "TMPDIR")}
    env.update(CODEX_HOME=config["home"], RUST_LOG="warn", NO_COLOR="1")
    argv = [config["codex"], "app-server", "-c", "model_provider=standin",
            "-c", "model_providers.standin=" + PROVIDER.replace("URL", url),
            "-c", "model=stand-in", "-c", "check_for_update_on_startup=false",
            "-c", "analytics.enabled=false"]  # fmt: skip
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env, cwd=config["ws"], limit=1 << 24,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
    next_id = 0
    case: dict[str, Any] = {}
    turn_done = asyncio.Event()
    notes: list[dict[str, Any]] = []

    async def send(msg: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        await proc.stdin.drain()

    async def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal next_id
        next_id += 1
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        pending[next_id] = fut
        await send({"id": next_id, "method": method, "params": params})
        # generous: a cold Codex binary alone can take 8-15 s to read from disk
        return await asyncio.wait_for(fut, 120)

    async def reader() -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            msg = json.loads(line)
            if "id" in msg and "method" not in msg:
                fut = pending.pop(msg["id"], None)
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                continue
            method, params = msg.get("method"), msg.get("params") or {}
            if "id" in msg:
                if "requestApproval" in str(method):
                    started = any(i.get("started") for i in case.get("items", []))
                    case.setdefault("approvals", []).append({
                        "method": method, "command": params.get("command"),
                        "reason": params.get("reason"), "after_run": started,
                        "availableDecisions": params.get("availableDecisions"),
                        "amendment": params.get("proposedExecpolicyAmendment"),
                    })  # fmt: skip
                    await send({"id": msg["id"], "result": {"decision": "cancel"}})
                else:
                    await send({"id": msg["id"], "error": {"code": -32601, "message": "no"}})
                continue
            if method in ("item/started", "item/completed"):
                item = params.get("item") or {}
                if item.get("type") == "commandExecution":
                    case.setdefault("items", []).append({
                        "started": method == "item/started", "status": item.get("status"),
                        "exitCode": item.get("exitCode"), "command": item.get("command"),
                        "output": item.get("aggregatedOutput"),
                    })  # fmt: skip
            elif method == "turn/completed":
                turn_done.set()
            elif method and "warning" in method.lower():
                notes.append(msg)
        for fut in pending.values():  # the app-server is gone (it refused to start)
            if not fut.done():
                fut.set_result({"error": "the app-server exited"})
        turn_done.set()

    task = asyncio.create_task(reader())
    result: dict[str, Any] = {"startup": None, "cases": []}
    try:
        init = await request("initialize", {"clientInfo": {"name": "shellgate_managed",
                                            "title": "t", "version": "0"}})  # fmt: skip
    except (TimeoutError, BrokenPipeError, ConnectionResetError):
        init = {"error": "no answer"}
    if "error" in init:
        rc = await asyncio.wait_for(proc.wait(), 60)
        err = (await proc.stderr.read()).decode(errors="replace")
        task.cancel()
        standin.stop()
        return {"startup": {"rc": rc, "stderr": err}, "cases": []}
    await send({"method": "initialized"})
    await asyncio.sleep(0.2)
    # warnings about the config files come once per process, whenever Codex loads them
    result["startup_warnings"] = list(notes)
    for spec in config["cases"]:
        case = {"items": [], "approvals": []}
        notes.clear()
        turn_done.clear()
        standin.script = [{"tool": "<auto>", "command": spec["command"]}] + [{"text": "done"}] * 4
        standin._cursor = 0
        standin.requests.clear()
        params = {"cwd": config["ws"], "ephemeral": True, "sandbox": spec["sandbox"]}
        if spec["approvalPolicy"]:  # "": none given, Codex's config files decide
            params["approvalPolicy"] = spec["approvalPolicy"]
        th = await request("thread/start", params)
        if "error" in th:
            case.update(thread_error=th["error"].get("message"), warnings=[], outputs=[])
            result["cases"].append(case)
            continue
        thread = th["result"]
        case["effective"] = {k: thread.get(k) for k in ("approvalPolicy", "sandbox")}
        await request("turn/start", {"threadId": thread["thread"]["id"],
                                     "input": [{"type": "text", "text": "run it"}]})  # fmt: skip
        try:
            await asyncio.wait_for(turn_done.wait(), config.get("timeout", 60))
        except TimeoutError:
            case["timeout"] = True
        posts = standin.posts
        case["outputs"] = [
            str(i.get("output"))
            for body in posts[1:2]
            for i in body.get("input") or []
            if isinstance(i, dict) and i.get("type", "").endswith("_output")
        ]
        case["warnings"] = list(notes)
        result["cases"].append(case)
    proc.stdin.close()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        proc.kill()
    task.cancel()
    standin.stop()
    result["stderr"] = (await proc.stderr.read()).decode(errors="replace")[-4000:]
    return result


def shellgate(config: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """ShellGate's explain and Claude Code hook for one case, in this same namespace."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "HOME")}
    env.update(CODEX_HOME=config["home"], XDG_CACHE_HOME=os.path.join(config["scratch"], "cache"),
               SHELLGATE_HOOK_FALLBACK="ask", XDG_RUNTIME_DIR=config["scratch"])  # fmt: skip
    py = [sys.executable, "-m", "shellgate"]
    policy, sandbox = spec["approvalPolicy"], spec["sandbox"]
    given = ["--approval-policy", policy] if policy else []
    explain = subprocess.run(
        [*py, "explain", "--json", "--run-hooks", "--cwd", config["ws"], *given,
         "--sandbox", sandbox, "--shell", spec["command"]],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    hook_flags = list(given)  # none given: the hook reads Codex's config files, as explain
    if sandbox != "danger-full-access":  # Claude Code's own commands run unsandboxed
        hook_flags += ["--sandbox", sandbox]
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
             "tool_input": {"command": spec["command"]}, "cwd": config["ws"]}  # fmt: skip
    hook = subprocess.run(
        [*py, "hook", "claude-code", *hook_flags], input=json.dumps(event),
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    return {
        "explain": {"rc": explain.returncode, "stdout": explain.stdout, "stderr": explain.stderr},
        "hook": {"rc": hook.returncode, "stdout": hook.stdout, "stderr": hook.stderr},
    }


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    mount_system(config["system"], config["scratch"])
    import time

    t0 = time.monotonic()
    result = asyncio.run(run(config))
    result["codex_seconds"] = round(time.monotonic() - t0, 2)
    if config.get("shellgate"):
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2) as pool:  # explain and the hook of each case, two at a time
            result["shellgate"] = list(pool.map(lambda spec: shellgate(config, spec),
                                                config["cases"]))  # fmt: skip
        result["shellgate_seconds"] = round(time.monotonic() - t0 - result["codex_seconds"], 2)
    Path(sys.argv[2]).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
