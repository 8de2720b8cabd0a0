"""Gemini CLI chats: `~/.gemini/tmp/<project>/chats/session-*.jsonl` (or under
$GEMINI_CLI_HOME/.gemini).

Lines are messages, or `{"$set": …}` updates of the session. A `gemini` message's `toolCalls`
hold `run_shell_command` calls with `args.command` (a script) and an optional `args.dir_path`;
the same message is written again as it grows, so calls are kept once by id. The project's
folder is in `<project>/.project_root`, next to `chats/`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers.lines import iso_time, json_lines


def project_root(path: str) -> str | None:
    marker = os.path.join(os.path.dirname(os.path.dirname(path)), ".project_root")
    try:
        with open(marker, encoding="utf-8") as handle:
            root = handle.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    return root if os.path.isabs(root) else None


def read(path: str, stats: ReadStats) -> Iterator[HistoryCommand]:
    root = project_root(path)
    seen: set[str] = set()
    for number, entry in json_lines(path, stats):
        calls = entry.get("toolCalls")
        if entry.get("type") != "gemini" or not isinstance(calls, list):
            continue
        when = iso_time(entry.get("timestamp"))
        for call in calls:
            if not isinstance(call, dict) or call.get("name") != "run_shell_command":
                continue
            ident = call.get("id")
            if isinstance(ident, str):
                if ident in seen:
                    continue
                seen.add(ident)
            args = call.get("args")
            command = args.get("command") if isinstance(args, dict) else None
            if not isinstance(command, str) or not command.strip():
                stats.skip(path, number, "run_shell_command without a command")
                continue
            folder = args.get("dir_path") or args.get("directory")  # type: ignore[union-attr]
            cwd = root
            if isinstance(folder, str) and folder:
                cwd = os.path.join(root or "/", folder)
            stats.entries += 1
            yield HistoryCommand(command, "gemini", path, number, when, cwd)
