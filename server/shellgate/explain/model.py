"""What an explanation holds: the whole decision chain for one command, as data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from shellgate.approval.beyond import Beyond
from shellgate.approval.context import ExecContext
from shellgate.approval.defaults import SandboxOverride
from shellgate.approval.requirement import ExecApprovalRequirement
from shellgate.codexconfig.session import Session
from shellgate.codexconfig.trust import ProjectTrust
from shellgate.rules.decision import Decision


@dataclass(frozen=True)
class RuleHit:
    """One prefix rule that matched a segment, and where it was written."""

    matched_prefix: tuple[str, ...]
    decision: Decision
    justification: str | None
    path: str | None
    line: int | None
    column: int | None
    layer: str | None
    resolved_program: str | None  # set when matched through host_executable resolution

    @property
    def location(self) -> str | None:
        if self.path is None:
            return None
        return self.path if self.line is None else f"{self.path}:{self.line}"


class Danger(Enum):
    FORCED_RM = "forced_rm"
    OTHER = "other"


@dataclass(frozen=True)
class Heuristic:
    """What Codex's built-in fallback decided for a segment no rule matched, and why."""

    decision: Decision
    danger: Danger | None
    why: str


@dataclass(frozen=True)
class Segment:
    """One command the policy sees, with its decision and what gave it."""

    command: tuple[str, ...]
    decision: Decision
    rules: tuple[RuleHit, ...]
    heuristic: Heuristic | None
    known_safe: bool


class Parse(Enum):
    PLAIN = "plain"  # a shell script of plain commands, split into segments
    WHOLE = "whole"  # the argv as one command (not a shell script, or not a plain one)


class DecidedBy(Enum):
    RULES = "rules"
    HEURISTICS = "heuristics"
    RULES_AND_HEURISTICS = "rules_and_heuristics"
    ESCALATION_CHECK = "escalation_check"  # refused before any rule was consulted


@dataclass(frozen=True)
class Warning:
    """Beyond Codex: something a person should know; never changes Codex's decision."""

    code: str
    message: str
    segment: int | None = None  # 0-based index into segments
    inner_command: tuple[str, ...] | None = None


@dataclass(frozen=True)
class FirstAttempt:
    """Where the command's first run happens once it may run (spec C.5)."""

    override: SandboxOverride
    sandboxed: bool  # inside Codex's own sandbox


@dataclass(frozen=True)
class SplitDifference:
    """A script Codex splits that ShellGate judges whole: bash would not run Codex's argvs.

    `codex` is what Codex's rules would see; `bash` what bash runs instead, each command as a
    shell line (None when only bash's own grammar could tell and the cross-check is off).
    """

    codex: tuple[tuple[str, ...], ...]
    bash: tuple[str, ...] | None
    why: str


@dataclass(frozen=True)
class Explanation:
    """The whole chain for one command: parse, segments, decision, requirement, warnings."""

    command: tuple[str, ...]
    shell: str | None  # the shell of a `bash -lc SCRIPT` form
    script: str | None
    cwd: str | None
    context: ExecContext
    parse: Parse
    segments: tuple[Segment, ...]
    decision: Decision | None  # None when nothing decided (refused before the rules)
    decided_by: DecidedBy
    requirement: ExecApprovalRequirement
    first_attempt: FirstAttempt | None  # None when it never runs
    warnings: tuple[Warning, ...]
    rules_files: tuple[tuple[str, str], ...] = ()  # (path, layer) of every file loaded
    project: ProjectTrust | None = None  # the trust that chose the project layers, if known
    split_difference: SplitDifference | None = None
    # the session's values as the admin's requirements left them (None: not resolved here)
    session: Session | None = None
    # Beyond Codex: what ShellGate requires as the gate (hooks, MCP, runs), when every command
    # bash runs is judged (approval.beyond) and that is stricter than Codex's requirement.
    gate: Beyond | None = None
