"""ShellGate's own agent transcripts (`shellgate agent --transcript`, by default
`$XDG_STATE_HOME/shellgate/transcripts/*.jsonl`): `{"ts", "method", "params"}` lines; each
`item/started` of a `commandExecution` item holds the command (a script), its cwd and the
model's justification."""

from __future__ import annotations

from collections.abc import Iterator

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers.lines import iso_time, json_lines


def read(path: str, stats: ReadStats) -> Iterator[HistoryCommand]:
    for number, entry in json_lines(path, stats):
        if entry.get("method") != "item/started":
            continue
        params = entry.get("params")
        item = params.get("item") if isinstance(params, dict) else None
        if not isinstance(item, dict) or item.get("type") != "commandExecution":
            continue
        command = item.get("command")
        if not isinstance(command, str) or not command.strip():
            stats.skip(path, number, "commandExecution without a command")
            continue
        cwd = item.get("cwd") if isinstance(item.get("cwd"), str) else None
        why = item.get("justification") if isinstance(item.get("justification"), str) else None
        stats.entries += 1
        yield HistoryCommand(command, "shellgate", path, number, iso_time(entry.get("ts")), cwd,
                             None, why)  # fmt: skip
