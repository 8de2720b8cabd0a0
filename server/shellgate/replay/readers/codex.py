"""Codex session rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`.

Each line is `{"timestamp", "type", "payload"}`. The working directory comes from
`session_meta` and each `turn_context`; the commands from `response_item` payloads:
`function_call` of `exec_command` (`cmd`, a script), `shell_command` (`command`, a script) or
`shell` (`command`, an argv), each with an optional `workdir`, `sandbox_permissions` and
`justification`; and `local_shell_call` (`action.command`, an argv).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers.lines import iso_time, json_lines

_SCRIPT_ARG = {"exec_command": "cmd", "shell_command": "command"}


def read(path: str, stats: ReadStats) -> Iterator[HistoryCommand]:
    cwd: str | None = None
    for number, entry in json_lines(path, stats):
        payload = entry.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = entry.get("type")
        if kind in ("session_meta", "turn_context"):
            if isinstance(payload.get("cwd"), str):
                cwd = payload["cwd"]
            continue
        if kind != "response_item":
            continue
        found = _command(payload, path, number, stats)
        if found is None:
            continue
        command, args = found
        workdir = args.get("workdir") or args.get("working_directory")
        where = cwd
        if isinstance(workdir, str) and workdir:
            where = os.path.join(cwd or "/", workdir)
        perms = args.get("sandbox_permissions")
        why = args.get("justification")
        stats.entries += 1
        yield HistoryCommand(
            command, "codex", path, number, iso_time(entry.get("timestamp")), where,
            perms if isinstance(perms, str) else None, why if isinstance(why, str) else None,
        )  # fmt: skip


def _command(
    payload: dict[str, Any], path: str, number: int, stats: ReadStats
) -> tuple[str | tuple[str, ...], dict[str, Any]] | None:
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        argv = action.get("command") if isinstance(action, dict) else None
        if isinstance(action, dict) and isinstance(argv, list) and _argv(argv):
            return tuple(argv), action
        stats.skip(path, number, "local_shell_call without a command")
        return None
    if payload.get("type") != "function_call":
        return None
    name = payload.get("name")
    if name not in ("exec_command", "shell_command", "shell"):
        return None
    try:
        args = json.loads(payload.get("arguments") or "")
    except (TypeError, ValueError):
        stats.skip(path, number, f"{name} call whose arguments are not JSON")
        return None
    if not isinstance(args, dict):
        stats.skip(path, number, f"{name} call whose arguments are not an object")
        return None
    if name == "shell":
        argv = args.get("command")
        if isinstance(argv, list) and _argv(argv):
            return tuple(argv), args
    else:
        script = args.get(_SCRIPT_ARG[name])
        if isinstance(script, str) and script.strip():
            return script, args
    stats.skip(path, number, f"{name} call without a command")
    return None


def _argv(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
