"""Broker round trip: a hook's question to the editor's server, answered with no human.

    .venv/bin/python benchmarks/bench_broker.py [--runs 300]

Starts the real `shellgate serve` process with a workspace folder (its broker endpoint comes
up on `initialized`), then, as a hook does, finds the server by cwd and sends `shellgate/decide`
on a fresh connection each time: connect, peer-uid check, request, the chain on the rules from
disk, answer. Rules: a 3-rule file and a generated 1 000-rule file in $CODEX_HOME/rules.

Target (issue 11): round trip p50 <= 10 ms. Also printed: the same decision in-process (what
the round trip adds), discovery alone, and the client's import time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

TARGET_P50_MS = 10.0
SMALL = """\
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt", justification="publishing needs a human")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="never automatic")
"""


def big_rules(n: int) -> str:
    decisions = ("allow", "prompt", "forbidden")
    return "".join(
        f'prefix_rule(pattern=["tool{i % 300}", "sub{i}"], decision="{decisions[i % 3]}"'
        + (f', justification="reason {i}"' if i % 3 == 2 else "")
        + ")\n"
        for i in range(n)
    )


def timed(fn: Callable[[Any], object], arg: Any, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        assert fn(arg) is not None
        out.append((time.perf_counter() - t) * 1000)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(name: str, ms: list[float], target: float | None = None) -> None:
    p50 = statistics.median(ms)
    verdict = "" if target is None else ("  OK" if p50 <= target else "  MISSED")
    goal = "" if target is None else f"  (target p50 <= {target:g} ms)"
    print(f"  {name:<50} p50 {p50:6.2f} ms  p95 {pct(ms, 0.95):6.2f} ms{goal}{verdict}")


async def main(runs: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="sgbench-", dir="/tmp"))
    home, project = root / "home", root / "project"
    (home / "rules").mkdir(parents=True)
    (project / ".git").mkdir(parents=True)
    os.environ.update(XDG_RUNTIME_DIR=str(root), CODEX_HOME=str(home),
                      XDG_CACHE_HOME=str(root / "cache"))  # fmt: skip
    from shellgate.broker import client as broker
    from shellgate.broker.decide import decide
    from shellgate.broker.protocol import AgentRequest

    lsp = LanguageClient("bench", "1")
    lsp.feature(T.WINDOW_LOG_MESSAGE)(lambda params: None)
    await lsp.start_io(sys.executable, "-m", "shellgate", "serve")
    await lsp.initialize_async(
        T.InitializeParams(
            capabilities=T.ClientCapabilities(),
            workspace_folders=[T.WorkspaceFolder(project.as_uri(), "project")],
            initialization_options={"codexHome": str(home)},
        )
    )
    lsp.initialized(T.InitializedParams())
    for _ in range(200):
        info = broker.find_server(str(project))
        if info is not None:
            break
        await asyncio.sleep(0.05)
    else:
        raise SystemExit("the server never registered its broker")

    print(f"broker round trip, {runs} runs each (load average {os.getloadavg()[0]:.2f})")
    for label, text in (("3 rules", SMALL), ("1 000 rules", SMALL + big_rules(1000))):
        (home / "rules" / "default.rules").write_text(text)
        print(f" {label}:")
        for command in ("git status", "git push origin main"):
            request = AgentRequest("claude-code", "bench", str(project), command)
            for _ in range(5):  # warm: the server loads the layers once
                assert await asyncio.to_thread(broker.decide, request) is not None

            wire = await asyncio.to_thread(timed, broker.decide, request, runs)
            local = await asyncio.to_thread(timed, decide, request, runs)
            line(f"`{command}`: hook -> server -> answer", wire, TARGET_P50_MS)
            line(f"`{command}`: decide in-process", local)
    found: list[float] = []
    for _ in range(runs):
        t = time.perf_counter()
        broker.find_server(str(project / "src"))
        found.append((time.perf_counter() - t) * 1000)
    line("discovery (find_server) alone", found)
    await lsp.shutdown_async(None)
    lsp.exit(None)
    await lsp.stop()  # type: ignore[no-untyped-call]

    imports = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import shellgate.broker.client"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        last = [x for x in out.stderr.splitlines() if x.endswith("shellgate.broker.client")]
        imports.append(int(last[-1].split("|")[1]) / 1000)
    name = "client import (-X importtime, cumulative)"
    print(f"  {name:<50} median {statistics.median(imports):.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    asyncio.run(main(parser.parse_args().runs))
