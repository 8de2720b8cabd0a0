"""Ask the real Codex which project rules it loads: `codex exec` offline, against the stand-in.

The stand-in model proposes one `touch <marker>` per probe; every `.codex/rules` folder under
test forbids `touch` for its own marker only. A marker on disk means Codex ran the command (that
folder's rules were not loaded); a missing marker with "rejected" in the tool output means Codex
loaded them. Runs inside `unshare -rn` (loopback only), approval `never`, no sandbox.

Usage (evidence): python tests/rules/codex_trust_probe.py CODEX_BINARY
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PYTHON = sys.executable


@dataclass(frozen=True)
class Probe:
    marker: str  # the file `touch` creates, relative to cwd
    rules_dir: Path  # the `.codex/rules` folder that forbids it


def forbid(rules_dir: Path, marker: str) -> Probe:
    rules_dir.mkdir(parents=True, exist_ok=True)
    (rules_dir / f"probe-{marker}.rules").write_text(
        f'prefix_rule(pattern=["touch", "{marker}"], decision="forbidden", '
        f'justification="probe {marker}")\n'
    )
    return Probe(marker, rules_dir)


def run_codex(
    codex: Path, *, codex_home: Path, cwd: Path, probes: Sequence[Probe], work: Path
) -> dict[str, bool]:
    """{marker: True when Codex refused `touch marker` (its rules were loaded)}."""
    work.mkdir(parents=True, exist_ok=True)
    script = [{"tool": "<auto>", "command": f"touch {p.marker}"} for p in probes]
    script.append({"text": "done"})
    (work / "script.json").write_text(json.dumps(script))
    for name in ("port", "requests.jsonl"):
        (work / name).unlink(missing_ok=True)
    inner = r"""
ip link set lo up
"$PY" -m shellgate.agent.standin "$WORK/script.json" --log "$WORK/requests.jsonl" \
    --port-file "$WORK/port" > "$WORK/standin.log" 2>&1 &
SP=$!
for i in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(cat "$WORK/port")
timeout 60 "$CODEX" exec --json --skip-git-repo-check --ephemeral -C "$CWD" \
  -c model_provider=standin \
  -c "model_providers.standin={name=\"standin\",wire_api=\"responses\",\
base_url=\"http://127.0.0.1:$PORT/v1\"}" \
  -c model=stand-in -c check_for_update_on_startup=false -c analytics.enabled=false \
  -c approval_policy=never -s danger-full-access --disable plugins \
  "go" > "$WORK/events.jsonl" 2> "$WORK/stderr.txt"
echo "rc=$?" > "$WORK/rc"
kill $SP; wait $SP 2>/dev/null
exit 0
"""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CODEX_")},
        "CODEX_HOME": str(codex_home),
        "CODEX": str(codex),
        "CWD": str(cwd),
        "WORK": str(work),
        "PY": PYTHON,
    }
    subprocess.run(["unshare", "-rn", "bash", "-c", inner], env=env, check=True, timeout=120)
    outputs = _tool_outputs(work / "requests.jsonl")
    result = {}
    for p in probes:
        ran = (cwd / p.marker).exists()
        refused = any(f"probe {p.marker}" in o for o in outputs)
        if ran == refused:  # neither or both: the probe tells nothing; say so loudly
            raise AssertionError(
                f"probe {p.marker}: ran={ran} refused={refused}; see {work}/events.jsonl, "
                f"{work}/stderr.txt"
            )
        result[p.marker] = refused
    return result


def _tool_outputs(log: Path) -> list[str]:
    out: list[str] = []
    if not log.exists():
        return out
    for line in log.read_text().splitlines():
        body = json.loads(line).get("body") or {}
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                value = item.get("output")
                out.append(value if isinstance(value, str) else json.dumps(value))
    return out
