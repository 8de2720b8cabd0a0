"""Language server speed and memory, through the real `shellgate serve` process.

    .venv/bin/python benchmarks/bench_lsp.py [--quick]

Targets (issue 4):
- diagnostics after one edit: <= 50 ms on a 1 000-rule file, <= 300 ms on a 10 000-rule file
  (didChange sent, then the time until the diagnostics of the new version are in: a pull
  request under VS Code's capabilities, the push under Neovim 0.7's);
- hover on a `match` example in a 10 000-rule file: p95 <= 20 ms;
- resident memory of the server with the 10 000-rule file open: <= 200 MB;
- a rules file changed on disk is seen (by a hover) within a second.
Also prints, in-process, how the edit time splits between the loader (`parse_text`, the
Starlark evaluation) and lint's own checks.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as T
from lsprotocol.converters import get_converter
from pygls.lsp.client import LanguageClient

CAPS = Path(__file__).parents[1] / "tests" / "lsp" / "capabilities"
DECISIONS = ("allow", "prompt", "forbidden")


def rules_text(n: int) -> str:
    out = []
    for i in range(n):
        d = DECISIONS[i % 3]
        why = f', justification = "reason {i}"' if d == "forbidden" else ""
        out.append(
            "prefix_rule(\n"
            f'    pattern = ["tool{i % 500}", "sub{i}", ["a{i}", "b{i}"]],\n'
            f'    decision = "{d}"{why},\n'
            f'    match = ["tool{i % 500} sub{i} a{i} x"],\n'
            f'    not_match = ["tool{i % 500} other{i}"],\n'
            ")\n"
        )
    return "".join(out)


def caps(profile: str) -> T.ClientCapabilities:
    raw = json.loads((CAPS / f"{profile}.json").read_text())["capabilities"]
    return get_converter().structure(raw, T.ClientCapabilities)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (load on the machine does not inflate it)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Session:
    def __init__(self, profile: str, home: Path) -> None:
        self.profile = profile
        self.pull = profile.startswith("code-server")
        self.client = LanguageClient("bench", "1")
        self.home = home
        self.pushed: dict[tuple[str, int | None], asyncio.Future[None]] = {}
        self.last: list[T.Diagnostic] = []

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _pushed(params: T.PublishDiagnosticsParams) -> None:
            fut = self.pushed.get((params.uri, params.version))
            if fut is not None and not fut.done():
                fut.set_result(None)
            self.last = list(params.diagnostics)

        for method in (
            T.CLIENT_REGISTER_CAPABILITY,
            T.WORKSPACE_INLAY_HINT_REFRESH,
            T.WORKSPACE_CODE_LENS_REFRESH,
            T.WORKSPACE_DIAGNOSTIC_REFRESH,
        ):
            self.client.feature(method)(lambda params: None)
        self.client.feature(T.WINDOW_LOG_MESSAGE)(lambda params: None)

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "shellgate", "serve")
        await self.client.initialize_async(
            T.InitializeParams(
                capabilities=caps(self.profile),
                root_uri=self.home.as_uri(),
                initialization_options={"codexHome": str(self.home)},
            )
        )
        self.client.initialized(T.InitializedParams())

    @property
    def pid(self) -> int:
        server = self.client._server
        assert server is not None
        return server.pid

    async def diagnostics(self, uri: str, version: int) -> float:
        """Seconds until the diagnostics of `version` are in (after the change was sent)."""
        start = time.perf_counter()
        if self.pull:
            report = await self.client.text_document_diagnostic_async(
                T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri))
            )
            self.last = list(getattr(report, "items", []))
        else:
            await asyncio.wait_for(self.pushed[(uri, version)], 600)
        took = time.perf_counter() - start
        # The edits keep the file valid: an error here would mean a broken benchmark.
        assert not [d for d in self.last if d.severity == T.DiagnosticSeverity.Error], self.last
        return took

    def expect_push(self, uri: str, version: int) -> None:
        self.pushed[(uri, version)] = asyncio.get_running_loop().create_future()

    async def open(self, uri: str, text: str) -> float:
        self.expect_push(uri, 1)
        start = time.perf_counter()
        self.client.text_document_did_open(
            T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "codex-rules", 1, text))
        )
        await self.diagnostics(uri, 1)
        return time.perf_counter() - start

    async def edit(self, uri: str, version: int, line: int, old: str, new: str) -> float:
        """Replace `old` (the decision's string, column 15) and time the diagnostics."""
        self.expect_push(uri, version)
        start = time.perf_counter()
        change = T.TextDocumentContentChangePartial(
            range=T.Range(T.Position(line, 15), T.Position(line, 15 + len(old))), text=new
        )
        self.client.text_document_did_change(
            T.DidChangeTextDocumentParams(T.VersionedTextDocumentIdentifier(version, uri), [change])
        )
        await self.diagnostics(uri, version)
        return time.perf_counter() - start

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def edit_latency(profile: str, n: int, edits: int, home: Path) -> tuple[list[float], float]:
    """Wall seconds per edit, and the server's CPU seconds per edit."""
    session = Session(profile, home)
    await session.start()
    path = home / f"bench-{n}.rules"
    uri = path.as_uri()
    await session.open(uri, rules_text(n))
    cpu = cpu_seconds(session.pid)
    times = []
    # Toggle the decision of a rule in the middle of the file: "allow" <-> "prompt".
    line = 6 * (n // 2 // 3 * 3) + 2  # a rule whose decision is "allow"
    for v in range(edits):
        old, new = ('"allow"', '"prompt"') if v % 2 == 0 else ('"prompt"', '"allow"')
        times.append(await session.edit(uri, v + 2, line, old, new))
    cpu = (cpu_seconds(session.pid) - cpu) / edits
    await session.stop()
    return times, cpu


async def hover_and_memory(hovers: int, home: Path) -> tuple[list[float], float, float]:
    session = Session("code-server-1.100.3", home)
    await session.start()
    n = 10_000
    uri = (home / "bench-hover.rules").as_uri()
    opened = await session.open(uri, rules_text(n))
    times = []
    for k in range(hovers):
        rule = (k * 97) % n
        start = time.perf_counter()
        result = await session.client.text_document_hover_async(
            T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(6 * rule + 3, 20))
        )
        times.append(time.perf_counter() - start)
        assert result is not None and "match example" in str(result.contents)
    memory = rss_mb(session.pid)
    await session.stop()
    return times, memory, opened


async def reload_latency(home: Path, runs: int) -> list[float]:
    """Seconds from writing a rules file in $CODEX_HOME/rules to a hover that shows it."""
    session = Session("neovim-0.7.2", home)
    await session.start()
    uri = (home / "checks.rules").as_uri()
    await session.open(uri, "# check: deploy now\n")
    times = []
    for k in range(runs):
        decision = DECISIONS[k % 3]
        start = time.perf_counter()
        (home / "rules" / "reload.rules").write_text(
            f'prefix_rule(pattern = ["deploy"], decision = "{decision}")\n'
        )
        while time.perf_counter() - start < 10:
            hover = await session.client.text_document_hover_async(
                T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(0, 12))
            )
            if hover is not None and f"`deploy` {decision}" in str(hover.contents):
                break
            await asyncio.sleep(0.01)
        times.append(time.perf_counter() - start)
        await asyncio.sleep(1.0)  # let the watcher settle before the next write
    await session.stop()
    return times


def split_in_process(n: int) -> tuple[float, float]:
    from shellgate.lint import analyze as analysis
    from shellgate.rules.loader import parse_text

    text = rules_text(n)
    parse, lint = [], []
    for _ in range(3):
        gc.collect()
        gc.freeze()  # as the server does after each analysis
        t0 = time.perf_counter()
        parsed = parse_text(text, "x.rules")
        t1 = time.perf_counter()
        analysis._analysis(text, "x.rules", parsed)
        t2 = time.perf_counter()
        parse.append(t1 - t0)
        lint.append(t2 - t1)
    return statistics.median(parse), statistics.median(lint)


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "MISSED"


async def main() -> None:
    quick = "--quick" in sys.argv
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    edits = 4 if quick else 10
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "rules").mkdir()
        print("diagnostics after one edit (didChange -> diagnostics of the new version)")
        for n, target in ((1_000, 50), (10_000, 300)):
            for profile in ("code-server-1.100.3", "neovim-0.7.2"):
                wall, cpu = await edit_latency(profile, n, edits, home)
                times = [t * 1000 for t in wall]
                med = statistics.median(times)
                mode = "pull" if profile.startswith("code") else "push"
                print(
                    f"  {n:>6} rules, {mode} ({profile}): median {med:7.1f} ms, "
                    f"max {max(times):7.1f} ms, server CPU {cpu * 1000:6.1f} ms/edit   "
                    f"target <= {target} ms: {verdict(med, target)}"
                )
            parse, lint = split_in_process(n)
            print(
                f"  {n:>6} rules, in process: loader parse_text {parse * 1000:7.1f} ms + "
                f"lint checks {lint * 1000:6.1f} ms"
            )
        reload = [t * 1000 for t in await reload_latency(home, 3 if quick else 8)]
        print(
            f"rules file changed on disk -> hover shows it: median "
            f"{statistics.median(reload):.0f} ms, max {max(reload):.0f} ms   target <= 1000 ms: "
            f"{verdict(max(reload), 1000)}"
        )
        times, memory, opened = await hover_and_memory(30 if quick else 200, home)
        ms = [t * 1000 for t in times]
        p95 = pct(ms, 95)
        print(
            f"hover on a match example, 10 000 rules: median {statistics.median(ms):.1f} ms, "
            f"p95 {p95:.1f} ms   target p95 <= 20 ms: {verdict(p95, 20)}"
        )
        print(
            f"server resident memory, 10 000-rule file open: {memory:.0f} MB   "
            f"target <= 200 MB: {verdict(memory, 200)}  (open + first diagnostics "
            f"{opened * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    asyncio.run(main())
