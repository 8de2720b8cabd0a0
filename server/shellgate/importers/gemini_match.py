"""Gemini CLI's matching of a shell call, from its 0.61.0 source (`buildArgsPatterns`) and
its bundled docs/reference/policy-engine.md: a rule's regex is searched in the call's arguments
as JSON, `{"command":"..."}`. `commandPrefix = "git log"` becomes
`"command":"git log(?:[\\s"]|\\\\")` (the prefix, then a blank, the end of the command or an
escaped quote); `commandRegex = R` becomes `"command":"R` (anchored at the start of the
command, not at its end).
"""

from __future__ import annotations

import json
import re

from shellgate.importers.model import Entry, Kind, Origin, Tool
from shellgate.importers.words import prefix_words

SHELL_TOOLS = ("run_shell_command", "ShellTool")
# Gemini's WORKSPACE/USER/ADMIN_POLICY_TIER.
WORKSPACE_TIER, USER_TIER, ADMIN_TIER = 3, 4, 5


def prefix_matcher(prefix: str) -> str:
    """Gemini's `buildArgsPatterns` for one `commandPrefix`, as a Python regex."""
    encoded = json.dumps(prefix, ensure_ascii=False)[:-1]  # open quote kept, close dropped
    return re.escape(f'"command":{encoded}') + r'(?:[\s"]|\\")'


def subject(command: str) -> str:
    """What Gemini matches a rule against: the arguments as JSON."""
    return json.dumps({"command": command}, ensure_ascii=False, separators=(",", ":"))


def prefix_entry(
    origin: Origin, kind: Kind, final: float, prefix: str, notes: tuple[str, ...]
) -> Entry:
    matcher = prefix_matcher(prefix)
    if prefix != prefix.rstrip() or prefix != prefix.lstrip():
        return Entry(
            Tool.GEMINI,
            origin,
            kind,
            matcher=matcher,
            matcher_subject="json",
            priority=final,
            problem="leading or trailing blanks: Gemini then matches only commands with an "
            "extra blank there, which no one types (google-gemini/gemini-cli#22607); fix the "
            "prefix first",
        )
    words, problem = prefix_words(prefix)
    return Entry(
        Tool.GEMINI,
        origin,
        kind,
        prefixes=(words,) if words else (),
        matcher=matcher,
        matcher_subject="json",
        priority=final,
        notes=notes,
        problem=problem,
    )
