"""The answerers' cost (issue 25).

1. The reviewer's overhead beyond the model's own time: N reviews through `Reviewer.answer`
   against the recipe's stand-in on 127.0.0.1 (tests/answer/standin/), and N bare streamed
   POSTs of the same request body (what any client pays for the model's answer); the
   difference of the medians is ShellGate's own work per review. Target: <= 20 ms.
2. `shellgate hook claude-code` with no Codex hooks and no reviewer configured, side by side
   with another checkout's code (default /work/main/server; `--baseline DIR`), alternating
   runs, the same interpreter and event: the p50 of each. Target: unchanged (within noise).

    .venv/bin/python benchmarks/bench_answerers.py [--runs N] [--baseline SERVER_DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "answer"))

from reviewenv import standin  # noqa: E402

from shellgate.answer.review_client import Provider  # noqa: E402
from shellgate.answer.review_request import Entry, policy_text  # noqa: E402
from shellgate.answer.reviewer import Reviewer  # noqa: E402
from shellgate.approval.question import ApprovalRequest, RequestKind  # noqa: E402

TARGET_MS = 20.0
ALLOW = {"json": {"risk_level": "low", "user_authorization": "high", "outcome": "allow",
                  "rationale": "fine"}}  # fmt: skip


async def _reviews(base_url: str, ws: str, runs: int) -> tuple[list[float], list[float]]:
    request = ApprovalRequest("b", RequestKind.EXEC, ("/bin/bash", "-lc", "touch x"), ws,
                              None, (), sandbox_permissions="require_escalated")  # fmt: skip
    entries = [Entry("user", "make x"), Entry("tool_call", '{"cmd": "touch x"}')]
    policy = policy_text()
    provider = Provider("stand-in", base_url, "responses", None)
    review_ms: list[float] = []
    raw_ms: list[float] = []
    async with httpx.AsyncClient(trust_env=False) as client:
        for _ in range(runs):
            r = Reviewer(provider, policy, lambda: entries, client=client)  # a fresh session
            t = time.perf_counter()
            await r.answer(request)
            review_ms.append((time.perf_counter() - t) * 1000)
            body, headers = r._body(), r._headers()
            t = time.perf_counter()
            async with client.stream("POST", base_url + "/responses", json=body,
                                     headers=headers) as resp:  # fmt: skip
                async for _line in resp.aiter_lines():
                    pass
            raw_ms.append((time.perf_counter() - t) * 1000)
    return review_ms, raw_ms


def _hook_ms(server: str, ws: Path, env: dict[str, str]) -> float:
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(ws),
                        "session_id": "b", "tool_input": {"command": "git status"}})
    argv = ["/usr/bin/env", f"PYTHONPATH={server}", sys.executable, "-s", "-P", "-m",
            "shellgate", "hook", "claude-code"]  # fmt: skip
    t = time.perf_counter()
    done = subprocess.run(argv, input=event, capture_output=True, text=True, env=env, cwd=ws)
    ms = (time.perf_counter() - t) * 1000
    assert done.returncode == 0 and "permissionDecision" in done.stdout, done.stderr
    return ms


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--baseline", default="/work/main/server")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        with standin(root / "standin", [ALLOW]) as s:
            review_ms, raw_ms = asyncio.run(_reviews(s.base_url, str(root / "ws"), args.runs))
        overhead = statistics.median(review_ms) - statistics.median(raw_ms)
        print(f"reviewer: review p50 {statistics.median(review_ms):.1f} ms, bare model call p50 "
              f"{statistics.median(raw_ms):.1f} ms, overhead {overhead:.1f} ms "
              f"(target <= {TARGET_MS:.0f} ms) over {args.runs} runs")
        home = root / "codex-home"
        (home / "rules").mkdir(parents=True)
        (home / "rules" / "default.rules").write_text(
            'prefix_rule(pattern=["git", "status"], decision="allow")\n')
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
               "CODEX_HOME": str(home), "XDG_RUNTIME_DIR": str(root),
               "XDG_CACHE_HOME": str(root / "cache")}  # fmt: skip
        mine, base = [], []
        for _ in range(2):  # warm both (the decision memo, the page cache)
            _hook_ms(str(ROOT / "server"), root / "ws", env)
            _hook_ms(args.baseline, root / "ws", env)
        for _ in range(args.runs):
            mine.append(_hook_ms(str(ROOT / "server"), root / "ws", env))
            base.append(_hook_ms(args.baseline, root / "ws", env))
        print(f"hook claude-code (no Codex hooks, no reviewer): this checkout p50 "
              f"{statistics.median(mine):.1f} ms, baseline {args.baseline} p50 "
              f"{statistics.median(base):.1f} ms; load {os.getloadavg()[0]:.2f}")
    return 0 if overhead <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
