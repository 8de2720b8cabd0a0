"""What a replay reads: commands from history files, and what could not be read."""

from __future__ import annotations

from dataclasses import dataclass, field
from shlex import join

# How many unreadable entries a report names (the rest are only counted).
NAMED_SKIPS = 5


@dataclass(frozen=True, slots=True)
class HistoryCommand:
    """One command as a shell or an agent recorded it.

    `command` is a script (run as `bash -lc SCRIPT`, as every agent here runs its shell tool
    and as a shell's history holds it) or an argv (Codex's `shell` tool)."""

    command: str | tuple[str, ...]
    source: str  # the format: bash, zsh, fish, codex, claude-code, gemini, shellgate
    path: str
    line: int  # 1-based line of the entry in `path`
    time: float | None = None  # seconds since the epoch, when recorded
    cwd: str | None = None
    sandbox_permissions: str | None = None  # an agent's escalation request, as recorded
    justification: str | None = None

    @property
    def text(self) -> str:
        if isinstance(self.command, str):
            return self.command

        return join(self.command)


@dataclass
class ReadStats:
    """Entries skipped while reading, counted; the first few are named (file:line: why)."""

    files: int = 0
    entries: int = 0
    skipped: int = 0
    named: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # whole files or folders lost, named

    def skip(self, path: str, line: int | None, why: str, *, whole: bool = False) -> None:
        """`whole`: the file (or folder) could not be read at all, or not to its end."""
        self.skipped += 1
        if whole:
            self.unreadable.append(f"{path}: {why}")
        if len(self.named) < NAMED_SKIPS:
            where = path if line is None else f"{path}:{line}"
            self.named.append(f"{where}: {why}")
