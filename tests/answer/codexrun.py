"""Run the real `codex exec` offline as the recipes do (../shared/recipes/auto-review/
run_exec.sh): inside `unshare -rn` (loopback only), against the recipe's stand-in model server
(standin/standin_review.py) started in the same namespace; every request the stand-in got is
logged with its role (main or reviewer)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from reviewenv import STANDIN

SCRIPT = r"""
ip link set lo up 2>/dev/null || true
"$PY" "$STANDIN" "$OUT/main.json" "$OUT/review.json" "$OUT/requests.jsonl" "$OUT/port" \
  >/dev/null 2>&1 &
SP=$!
for i in $(seq 100); do [ -s "$OUT/port" ] && break; sleep 0.05; done
PORT=$(cat "$OUT/port")
timeout 90 "$CODEX" exec --json --skip-git-repo-check --ephemeral -C "$WS" \
  -c model_provider=standin \
  -c "model_providers.standin={name=\"standin\",base_url=\"http://127.0.0.1:$PORT/v1\",\
wire_api=\"responses\"}" \
  -c model=stand-in -c check_for_update_on_startup=false -c analytics.enabled=false \
  "$@" "$PROMPT" > "$OUT/events.jsonl" 2> "$OUT/stderr.txt"
echo $? > "$OUT/rc"
kill $SP
"""


def codex_exec(codex: Path, out: Path, ws: Path, codex_home: Path, prompt: str,
               main: list[dict[str, Any]], review: list[dict[str, Any]],
               *args: str) -> list[dict[str, Any]]:
    """The requests the stand-in got (each with its "role")."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "main.json").write_text(json.dumps(main))
    (out / "review.json").write_text(json.dumps(review))
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(out), "OUT": str(out),
           "WS": str(ws), "CODEX": str(codex), "CODEX_HOME": str(codex_home),
           "STANDIN": str(STANDIN), "PY": sys.executable, "PROMPT": prompt}
    subprocess.run(["unshare", "-rn", "bash", "-c", SCRIPT, "bash", *args], env=env,
                   timeout=150, check=False)  # fmt: skip
    log = out / "requests.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def told(requests: list[dict[str, Any]]) -> list[str]:
    """What the main model was told of its tool calls (function_call_output, last request)."""
    main = [r for r in requests if r["role"] == "main"]
    return [i["output"] for i in main[-1]["body"]["input"]
            if i.get("type") == "function_call_output"]  # fmt: skip
