"""Gemini CLI: where its settings and policies are, their tiers, and one Source from them.

The rule with the highest final priority (`tier + priority/1000`) decides, whatever it says;
Codex's strictest wins instead (the report shows the commands that change). Policy TOML:
`gemini_policy`; the settings lists: `gemini_settings`; the matching: `gemini_match`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from shellgate.importers.gemini_match import ADMIN_TIER, USER_TIER, WORKSPACE_TIER
from shellgate.importers.gemini_policy import read_policy
from shellgate.importers.gemini_settings import read_settings
from shellgate.importers.model import Combine, Entry, Ignored, Kind, Source, Tool

__all__ = ["USER_TIER", "default_files", "read", "tier_of"]


def default_files(
    cwd: Path, *, home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[Path]:
    """Settings and policy files Gemini CLI reads: user, workspace, then admin policies."""
    env = os.environ if env is None else env
    gemini_home = Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME") else None
    user = gemini_home or (home or Path.home())
    files: list[Path] = []
    for base in (user / ".gemini", cwd / ".gemini"):
        if (base / "settings.json").is_file():
            files.append(base / "settings.json")
        policies = base / "policies"
        if policies.is_dir():
            files += sorted(p for p in policies.glob("*.toml") if p.is_file())
    admin = Path("/etc/gemini-cli/policies")
    if admin.is_dir():
        files += sorted(p for p in admin.glob("*.toml") if p.is_file())
    return files


def tier_of(path: Path, *, home: Path | None = None) -> int:
    """Admin under /etc/gemini-cli, workspace for another folder's `.gemini/policies`, else
    user (a file named on the command line is user tier, as Gemini's `--policy`)."""
    resolved = path.resolve()
    if resolved.is_relative_to("/etc/gemini-cli"):
        return ADMIN_TIER
    folder = resolved.parent
    in_gemini = folder.name == "policies" and folder.parent.name == ".gemini"
    if in_gemini and folder.parent.parent != (home or Path.home()).resolve():
        return WORKSPACE_TIER
    return USER_TIER


def read(paths: Sequence[Path], *, tiers: Mapping[Path, int] | None = None) -> Source:
    entries: list[Entry] = []
    ignored: list[Ignored] = []
    notes: list[str] = []
    for path in paths:
        if path.suffix == ".toml":
            tier = (tiers or {}).get(path) or tier_of(path)
            if tier == WORKSPACE_TIER:
                notes.append(
                    f"{path}: Gemini's docs say workspace policies are currently disabled "
                    "(google-gemini/gemini-cli#18186); imported as written (tier 3)"
                )
            got, skipped = read_policy(path, tier)
        else:
            got, skipped, more = read_settings(path)
            notes += more
        entries += got
        ignored += skipped
    # `tools.core` blocks every command it does not list (its docs: "ls -l: Blocked").
    core = any(e.origin.key in ("tools.core", "coreTools") for e in entries)
    return Source(
        Tool.GEMINI,
        tuple(str(p) for p in paths),
        tuple(entries),
        tuple(ignored),
        default=Kind.DENY if core else Kind.ASK,
        combine=Combine.PRIORITY,
        notes=tuple(notes),
    )
