"""Running a real agent CLI against the stand-in model (`shellgate.agent.standin`), inside
`unshare -rn` (only loopback up): the stand-in and the CLI share the namespace, so nothing leaves
the machine (`netns_run.py` is what runs inside)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def run_in_netns(
    work: Path, script: object, argv: list[str], env: dict[str, str], *,
    cwd: Path | None = None, timeout: float = 90,
) -> dict[str, Any]:  # fmt: skip
    """Run `argv` (with exactly `env`) once against the stand-in, both inside `unshare -rn`:
    {"rc", "stdout", "stderr", "requests": main-loop bodies, "log": every request}."""
    if shutil.which("unshare") is None:
        raise AssertionError("unshare (util-linux) is needed for the offline agent tests")
    work.mkdir(parents=True, exist_ok=True)
    config, result = work / "turn.json", work / "result.json"
    config.write_text(json.dumps({"script": script, "argv": argv, "env": env,
                                  "cwd": str(cwd) if cwd else None, "timeout": timeout}))
    subprocess.run(["unshare", "-rn", sys.executable, str(HERE / "netns_run.py"), str(config),
                    str(result)], check=True, timeout=timeout + 30)  # fmt: skip
    out: dict[str, Any] = json.loads(result.read_text())
    return out


def home_dir() -> Iterator[Path]:
    """A scratch folder outside /tmp (Codex refuses to put its helpers under a temp dir)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shellgate-tests"
    base.mkdir(parents=True, exist_ok=True)
    d = Path(tempfile.mkdtemp(prefix="mcp-", dir=base))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run_client(
    out: Path, script: object, client: str, env: dict[str, str], timeout: float = 150,
) -> tuple[int, list[dict[str, Any]]]:  # fmt: skip
    """The shell command `client` (the stand-in's port in `$PORT`, this process's environment
    plus `env`): (its exit status, the stand-in's log: every request it was sent)."""
    full = {**os.environ, **env, "PORT": "{PORT}"}
    result = run_in_netns(out, script, ["bash", "-c", client], full, timeout=timeout)
    (out / "stdout.txt").write_text(result["stdout"])
    (out / "stderr.txt").write_text(result["stderr"])
    rc = result["rc"]
    return (rc if isinstance(rc, int) else 124), result["log"]


def dump(out: Path) -> str:
    """The client's output, for a failing assertion's message."""
    parts = []
    for name in ("stdout.txt", "stderr.txt"):
        p = out / name
        if p.exists():
            parts.append(f"--- {name}\n{p.read_text()[-3000:]}")
    return "\n".join(parts)


def tool_results(body: dict[str, Any]) -> list[str]:
    """What one model request told the model of its tool calls, oldest first: Anthropic's
    `tool_result` blocks, Gemini's `functionResponse` parts, OpenAI Responses' call outputs,
    Chat Completions' `tool` messages."""
    out: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if message.get("role") == "tool":  # OpenAI Chat Completions
            out.append(content if isinstance(content, str) else json.dumps(content))
            continue
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                told = block.get("content")
                if isinstance(told, list):
                    told = "".join(c.get("text", "") for c in told if isinstance(c, dict))
                out.append(str(told))
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if "functionResponse" in part:
                out.append(json.dumps(part["functionResponse"].get("response")))
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            out.append(str(item.get("output")))
    return out
