"""Running a real agent CLI against the stand-in model (`shellgate.agent.standin`), inside
`unshare -rn` (only loopback up): the stand-in and the CLI share the namespace, so nothing leaves
the machine. The CLI's command reads the stand-in's port from `$PORT`."""

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

import pytest

RUNNER = r"""
set -u
ip link set lo up
"$PY" -m shellgate.agent.standin "$SCRIPT" --log "$OUT/requests.jsonl" --port-file "$OUT/port" \
  > "$OUT/standin.log" 2>&1 &
SP=$!
for i in $(seq 100); do [ -s "$OUT/port" ] && break; sleep 0.1; done
export PORT=$(cat "$OUT/port")
eval "$CLIENT" > "$OUT/stdout.txt" 2> "$OUT/stderr.txt" < /dev/null
echo $? > "$OUT/rc"
kill $SP; wait $SP 2>/dev/null
exit 0
"""


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
    """(the client's exit status, the stand-in's log: every request it was sent)."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    out.mkdir(parents=True, exist_ok=True)
    (out / "script.json").write_text(json.dumps(script))
    full = {**os.environ, **env, "PY": sys.executable,
            "SCRIPT": str(out / "script.json"), "OUT": str(out), "CLIENT": client}  # fmt: skip
    subprocess.run(["unshare", "-rn", "bash", "-c", RUNNER], env=full, timeout=timeout,
                   check=True)  # fmt: skip
    rc = int((out / "rc").read_text())
    log = out / "requests.jsonl"
    requests = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return rc, requests


def dump(out: Path) -> str:
    """The client's output, for a failing assertion's message."""
    parts = []
    for name in ("stdout.txt", "stderr.txt", "standin.log"):
        p = out / name
        if p.exists():
            parts.append(f"--- {name}\n{p.read_text()[-3000:]}")
    return "\n".join(parts)


def tool_results(body: dict[str, Any]) -> list[str]:
    """What one model request told the model of its tool calls, oldest first: Anthropic's
    `tool_result` blocks, Gemini's `functionResponse` parts, OpenAI Responses' call outputs."""
    out: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content")
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
