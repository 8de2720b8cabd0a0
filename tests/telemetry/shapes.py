"""The shape of a decision's OpenTelemetry export, as compared with Codex's own: for each
decision event (logs codex.tool_decision, codex.tool_result, codex.sandbox_outcome; metrics
codex.approval.requested, codex.hooks.run) its attribute names, their OTLP types, and the
values of the attributes whose values are a vocabulary (decision, source, success, ...).
Values that differ by nature (ids, times, text, the service) are not compared; ShellGate's own
`shellgate.*` attributes are set aside.

`python shapes.py RUN_DIR... > codex_shapes.json` writes the fixture from runs of the real
Codex (otlp.jsonl as ../shared/recipes/hooks-otel/trial.py saves them)."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

from receiver import rows_of

LOGS = ("codex.tool_decision", "codex.tool_result", "codex.sandbox_outcome")
METRICS = ("codex.approval.requested", "codex.hooks.run")
VOCABULARY = {"decision", "source", "success", "tool_name", "tool_namespace", "outcome",
              "approved", "tool", "status", "hook_name", "output_truncated", "agent_name",
              "mcp_server", "mcp_server_origin", "handler_type", "execution_mode"}  # fmt: skip


def shape(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decision events among `rows` (receiver.rows_of), in arrival order per signal."""
    out = []
    for row in rows:
        wanted = LOGS if row["signal"] == "log" else METRICS if row["signal"] == "metric" else ()
        if row["name"] not in wanted:
            continue
        attrs = {k: [t, v if k in VOCABULARY else None] for k, (t, v) in row["attrs"].items()
                 if not k.startswith("shellgate.")}  # fmt: skip
        item: dict[str, Any] = {"signal": row["signal"], "name": row["name"], "attrs": attrs}
        if row["signal"] == "metric":
            item["value"] = row["value"]
            item["type"] = row["type"]
        out.append(item)
    # in a fixed order: which call came first is not part of the shape
    return sorted(out, key=lambda i: (i["signal"], LOGS.index(i["name"]) if i["name"] in LOGS
                                      else METRICS.index(i["name"]),
                                      json.dumps(i, sort_keys=True)))  # fmt: skip


def from_trial(run: Path) -> list[dict[str, Any]]:
    rows = []
    for line in (run / "otlp.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if "json" in rec:
            post = {"path": rec["path"], "content_type": "application/json",
                    "b64": base64.b64encode(json.dumps(rec["json"]).encode()).decode()}
        else:
            post = {"path": rec["path"], "content_type": "application/x-protobuf",
                    "b64": rec["b64"]}
        rows.extend(rows_of(post))
    return shape(rows)


if __name__ == "__main__":
    runs = {Path(p).name: from_trial(Path(p)) for p in sys.argv[1:]}
    print(json.dumps(runs, indent=1, sort_keys=True))
