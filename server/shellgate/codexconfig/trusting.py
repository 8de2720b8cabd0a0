"""Trusting a project the way Codex records it: `[projects."<folder>"] trust_level = "trusted"`
in `$CODEX_HOME/config.toml` (what Codex writes when you trust a folder at its start).

An existing entry for the folder gets its `trust_level` set (an `untrusted` one becomes
`trusted`); otherwise the table is appended. A config.toml that is not valid TOML is refused,
nothing written (Codex would not start on it either); a changed file is backed up first and
replaced atomically (`config_edit.save`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from shellgate.config_edit import parse_toml, save


@dataclass(frozen=True)
class Trusted:
    path: Path  # the config.toml written
    text: str  # the table as it now reads
    changed: bool


def _quoted(key: str) -> str:
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def trust_folder(codex_home: Path, folder: Path) -> Trusted:
    """Mark `folder` (made absolute) trusted in `codex_home/config.toml`."""
    key = str(folder.resolve())
    config = codex_home / "config.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    data = parse_toml(config, text, "not valid TOML")
    header = f"[projects.{_quoted(key)}]"
    table = f'{header}\ntrust_level = "trusted"\n'
    projects = data.get("projects")
    entry = projects.get(key) if isinstance(projects, dict) else None
    if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
        return Trusted(config, table, False)
    at = text.find(header + "\n") if isinstance(entry, dict) else -1
    if at < 0:  # no table of its own (or one written inline): append ours
        new = text + ("" if not text or text.endswith("\n") else "\n")
        new += ("\n" if new else "") + table
    else:
        body_start = at + len(header) + 1
        next_table = re.compile(r"^\s*\[", re.M).search(text, body_start)
        body_end = next_table.start() if next_table else len(text)
        body = text[body_start:body_end]
        level = re.compile(r'^(\s*trust_level\s*=\s*)("[^"\n]*"|\'[^\'\n]*\')', re.M)
        if level.search(body):
            body = level.sub(lambda m: m[1] + '"trusted"', body, count=1)
        else:
            body = 'trust_level = "trusted"\n' + body
        new = text[:body_start] + body + text[body_end:]
    parse_toml(config, new, "would not be valid TOML after the edit")  # never write a broken file
    change = save(config, "trust", new)
    return Trusted(config, table, change.changed)
