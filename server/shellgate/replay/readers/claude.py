"""Claude Code transcripts: `~/.claude/projects/<cwd, dashed>/<session>.jsonl` (or under
$CLAUDE_CONFIG_DIR).

Each `assistant` line holds `message.content`, whose `tool_use` blocks named `Bash` carry
`input.command` (a script Claude Code runs with bash); the line's own `cwd` and `timestamp`
say where and when. `dangerouslyDisableSandbox: true` asks to run outside Claude Code's
sandbox: replayed as Codex's `require_escalated`, its nearest equivalent.
"""

from __future__ import annotations

from collections.abc import Iterator

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers.lines import iso_time, json_lines


def read(path: str, stats: ReadStats) -> Iterator[HistoryCommand]:
    for number, entry in json_lines(path, stats):
        if entry.get("type") != "assistant":
            continue
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else None
        when = iso_time(entry.get("timestamp"))
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            if block.get("name") != "Bash":
                continue
            data = block.get("input")
            command = data.get("command") if isinstance(data, dict) else None
            if not isinstance(command, str) or not command.strip():
                stats.skip(path, number, "Bash call without a command")
                continue
            assert isinstance(data, dict)
            escalated = data.get("dangerouslyDisableSandbox") is True
            about = data.get("description")
            stats.entries += 1
            yield HistoryCommand(
                command, "claude-code", path, number, when, cwd,
                "require_escalated" if escalated else None,
                about if isinstance(about, str) else None,
            )  # fmt: skip
