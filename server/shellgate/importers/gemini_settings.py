"""Gemini CLI settings.json: the older `tools.*` lists (and their V1 names), at the priorities
Gemini 0.61.0 gives them (its `*_PRIORITY` constants: user tier + a fraction)."""

from __future__ import annotations

import re
from pathlib import Path

from shellgate.importers.errors import ImportInputError
from shellgate.importers.gemini_match import SHELL_TOOLS, USER_TIER, prefix_entry
from shellgate.importers.jsonpos import Node, parse_json
from shellgate.importers.model import Entry, Ignored, Kind, Origin, Tool
from shellgate.importers.source import read_source

_SETTINGS_LISTS = {
    "exclude": (Kind.DENY, USER_TIER + 0.4),
    "confirmationRequired": (Kind.ASK, USER_TIER + 0.35),
    "allowed": (Kind.ALLOW, USER_TIER + 0.3),
    "core": (Kind.ALLOW, USER_TIER + 0.25),
}
# The V1 flat names Gemini still migrates.
_V1_NAMES = {"excludeTools": "exclude", "allowedTools": "allowed", "coreTools": "core"}
_SHELL_ENTRY = re.compile(r"^([a-zA-Z0-9_-]+)\((.*)\)$", re.DOTALL)


def read_settings(path: Path) -> tuple[list[Entry], list[Ignored], list[str]]:
    text = read_source(path)
    name = str(path)
    root = parse_json(text, name, comments=True)  # Gemini strips comments, then JSON.parse
    if not isinstance(root.value, dict):
        raise ImportInputError(
            "the settings file must hold a JSON object",
            path=name,
            line=root.line,
            column=root.column,
        )
    lists: list[tuple[str, str, Node]] = []
    tools = root.value.get("tools")
    if tools is not None:
        if not isinstance(tools.value, dict):
            raise ImportInputError(
                "`tools` must be an object", path=name, line=tools.line, column=tools.column
            )
        for key in _SETTINGS_LISTS:
            if key in tools.value:
                lists.append((key, f"tools.{key}", tools.value[key]))
    for old, key in _V1_NAMES.items():
        if old in root.value:
            lists.append((key, old, root.value[old]))
    entries: list[Entry] = []
    ignored: list[Ignored] = []
    notes: list[str] = []
    for key, label, node in lists:
        if not isinstance(node.value, list):
            raise ImportInputError(
                f"`{label}` must be an array of strings",
                path=name,
                line=node.line,
                column=node.column,
            )
        kind, priority = _SETTINGS_LISTS[key]
        for item in node.value:
            if not isinstance(item.value, str):
                raise ImportInputError(
                    f"`{label}` holds a non-string entry",
                    path=name,
                    line=item.line,
                    column=item.column,
                )
            origin = Origin(name, item.line, item.column, label, item.value)
            got = _settings_entry(origin, kind, priority)
            (ignored if isinstance(got, Ignored) else entries).append(got)  # type: ignore[arg-type]
        if key == "core" and node.value:
            notes.append(
                f"{name}: `{label}` blocks every command it does not list; Codex rules cannot "
                'say "everything else is forbidden": unlisted commands go to Codex\'s heuristics'
            )
    return entries, ignored, notes


def _settings_entry(origin: Origin, kind: Kind, priority: float) -> Entry | Ignored:
    text = origin.text.strip()
    m = _SHELL_ENTRY.match(text)
    tool, args = (m.group(1), m.group(2)) if m else (text, None)
    if tool not in SHELL_TOOLS:
        return Ignored(origin, f"`{tool}` is not the shell tool")
    if args is None or not args.strip():
        return Entry(
            Tool.GEMINI,
            origin,
            kind,
            priority=priority,
            problem="the whole shell tool: Codex rules need at least the program to match",
        )
    return prefix_entry(origin, kind, priority, args, ())
