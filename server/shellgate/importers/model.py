"""What an import reads, whatever the tool: entries with where they came from.

An `Entry` is one allowlist item that speaks about shell commands. `prefixes` is what a Codex
`prefix_rule` would match (one or more word prefixes); `matcher` reproduces the source tool's
own matching on one sub-command (a Python regex over the text the tool matches), so the
round trip compares the tool's decision with ShellGate's without trusting the translation.
An entry that cannot be translated keeps `problem` (and its prefixes when it has words, so the
round trip still shows what the source does with them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Tool(Enum):
    CLAUDE_CODE = "claude-code"
    GEMINI = "gemini"
    VSCODE = "vscode"

    @property
    def title(self) -> str:
        return {"claude-code": "Claude Code", "gemini": "Gemini CLI", "vscode": "VS Code"}[
            self.value
        ]


class Kind(Enum):
    """What the source says about a matching command."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"

    @property
    def rank(self) -> int:
        """Strictness: deny over ask over allow."""
        return ("allow", "ask", "deny").index(self.value)


class Combine(Enum):
    """How the source tool combines several matching entries."""

    STRICTEST = "strictest"  # deny over ask over allow (Claude Code, VS Code): as Codex
    PRIORITY = "priority"  # the highest priority wins, whatever it says (Gemini CLI)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an entry is written: file, 1-based line and column, the key, the text."""

    path: str
    line: int
    column: int
    key: str  # e.g. "permissions.allow", "rule[3].commandPrefix"
    text: str  # the entry as the user wrote it

    def where(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Entry:
    tool: Tool
    origin: Origin
    kind: Kind
    prefixes: tuple[tuple[str, ...], ...] = ()
    matcher: str | None = None  # Python regex: does the source's entry match a sub-command?
    matcher_subject: str = "command"  # "command" (the text) or "json" (Gemini's args JSON)
    exact: bool = False  # the source matches the whole command only
    priority: float | None = None  # Gemini's final priority (tier + priority/1000)
    notes: tuple[str, ...] = ()
    problem: str | None = None  # why it cannot be translated
    written: str | None = None  # the command as the entry spells it (its own quotes kept)


@dataclass(frozen=True, slots=True)
class Ignored:
    """An entry about something other than shell commands (file reads, MCP tools, ...)."""

    origin: Origin
    reason: str


@dataclass(frozen=True, slots=True)
class Source:
    """Everything read from one tool's files."""

    tool: Tool
    files: tuple[str, ...]
    entries: tuple[Entry, ...]
    ignored: tuple[Ignored, ...] = ()
    default: Kind = Kind.ASK  # what the tool does with a command no entry matches
    combine: Combine = Combine.STRICTEST
    notes: tuple[str, ...] = field(default=())
