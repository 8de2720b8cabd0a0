"""Running a real agent CLI against a stand-in model, inside `unshare -rn` (only loopback up):
the stand-in and the CLI share the namespace, so nothing leaves the machine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUNNER = r"""
set -u
ip link set lo up
"$PY" $STANDIN "$SCRIPT" --log "$OUT/requests.jsonl" --port-file "$OUT/port" \
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
    out: Path, standin: Sequence[str], script: object, client: str, env: dict[str, str],
    timeout: float = 150,
) -> tuple[int, list[dict[str, object]]]:  # fmt: skip
    """(the client's exit status, the model requests it made)."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    out.mkdir(parents=True, exist_ok=True)
    (out / "script.json").write_text(json.dumps(script))
    full = {**os.environ, **env, "PY": sys.executable, "STANDIN": " ".join(standin),
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
