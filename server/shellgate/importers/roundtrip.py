"""Commands built from the entries, and the records of the user's history, decided twice: by
the source tool as its documentation defines it (the entry's own matcher, the tool's way of
combining), and by ShellGate's whole chain with the new rules. Differences first.

ShellGate's column is `shellgate replay`'s own decision (`replay.engine`: the same distinct
records, each with its escalation request and cwd), so the two can never disagree. It decides
under approval policy `untrusted` by default: like the source tools in their default modes,
Codex then asks about every command no rule allows.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from shellgate.approval.context import UNTRUSTED, ExecContext
from shellgate.importers.claude_code import strip_wrappers
from shellgate.importers.gemini_match import subject
from shellgate.importers.model import Combine, Entry, Kind, Source, Tool
from shellgate.replay.engine import Decided, Outcome, decide, replay
from shellgate.replay.model import HistoryCommand
from shellgate.rules.policy import Policy
from shellgate.shell.split import extract_shell_script, parse_shell_lc_plain_commands

_OUTCOME_KIND = {Outcome.ALLOW: Kind.ALLOW, Outcome.PROMPT: Kind.ASK, Outcome.FORBIDDEN: Kind.DENY}
_MAX_PREFIXES_PER_ENTRY = 3  # a regex of many alternatives: a few of them tell the story


@dataclass(frozen=True, slots=True)
class Row:
    command: str  # as the source tool would see it: the script, or the argv joined
    source: Kind
    source_by: tuple[Entry, ...]  # the entries that matched (the deciding one first)
    shellgate: Kind
    shellgate_by: str  # the rule that decided, or "no rule (heuristics)"
    origin: str  # "entry" or "history"
    recorded: str | tuple[str, ...] | None = None  # history: the command as recorded
    sandbox_permissions: str | None = None  # history: the escalation the agent asked for
    where: str | None = None  # history: path:line of the occurrence replay reports

    @property
    def differs(self) -> bool:
        return self.source is not self.shellgate

    @property
    def order_change(self) -> bool:
        """The source's own order (Gemini's priorities) let a less strict entry decide over
        a stricter one that also matched; Codex's strictest-wins decides the other way."""
        if not self.differs or not self.source_by:
            return False
        deciding = self.source_by[0].kind.rank
        return any(e.kind.rank > deciding for e in self.source_by[1:])

    @property
    def shadowed(self) -> tuple[Entry, ...]:
        """Entries that matched but lost, in the source and in ShellGate alike."""
        if self.differs:
            return ()
        return tuple(e for e in self.source_by if e.kind is not self.source)


def commands_from(source: Source) -> list[str]:
    """Each entry's command, and variants where the source tool and Codex are known to part:
    one more argument after an exact entry, a glued last word, a wrapper Claude Code strips,
    a VS Code path key with `./` in front."""
    out: list[str] = []
    for entry in source.entries:
        for words in entry.prefixes[:_MAX_PREFIXES_PER_ENTRY]:
            # The entry's own spelling when it has one: re-quoted, `echo "a b"` would become
            # `echo 'a b'`, which an exact entry does not match.
            own = entry.written if len(entry.prefixes) == 1 else None
            base = own or shlex.join(words)
            candidates = [base]
            if entry.exact:  # where the source stops and a prefix rule goes on
                candidates.append(f"{base} --help")
            glued = f"{base}x"
            if entry.matcher and _matches(source.tool, entry, glued):
                candidates.append(glued)
            if source.tool is Tool.CLAUDE_CODE and entry.kind is not Kind.ALLOW:
                candidates.append(f"timeout 30 {base}")
            if source.tool is Tool.VSCODE and "/" in words[0] and not base.startswith("./"):
                candidates.append(f"./{base}")  # VS Code's path keys take a leading ./
            out += candidates
    return list(dict.fromkeys(out))


def source_decision(source: Source, command: str) -> tuple[Kind, tuple[Entry, ...]]:
    """All three tools split a script on its operators and decide each command; the
    strictest part decides the script. What Codex's split does not read as plain commands
    (`FOO=1 cmd`, say) is judged whole, as the tool's matcher sees it."""

    parts = parse_shell_lc_plain_commands(["bash", "-lc", command])
    if not parts or len(parts) == 1:
        return _one_command(source, command)
    decided = [_one_command(source, shlex.join(part)) for part in parts]
    worst = max(decided, key=lambda d: d[0].rank)
    rest = tuple(e for d in decided if d is not worst for e in d[1])
    return worst[0], worst[1] + rest


def _one_command(source: Source, command: str) -> tuple[Kind, tuple[Entry, ...]]:
    matched = [e for e in source.entries if e.matcher and _matches(source.tool, e, command)]
    if not matched:
        return source.default, ()
    if source.combine is Combine.PRIORITY:
        # Highest priority first; Python's sort is stable, so file order breaks ties.
        ranked = sorted(matched, key=lambda e: -(e.priority or 0.0))
        return ranked[0].kind, tuple(ranked)
    for kind in (Kind.DENY, Kind.ASK, Kind.ALLOW):
        deciding = [e for e in matched if e.kind is kind]
        if deciding:
            return kind, tuple(deciding + [e for e in matched if e.kind is not kind])
    raise AssertionError("unreachable")


def _matches(tool: Tool, entry: Entry, command: str) -> bool:
    assert entry.matcher is not None
    if entry.matcher_subject == "json":
        return re.search(entry.matcher, subject(command)) is not None
    text = strip_wrappers(command) if tool is Tool.CLAUDE_CODE else command
    return re.search(entry.matcher, text, re.DOTALL) is not None


def as_the_tool_sees(command: str | tuple[str, ...]) -> str:
    """A record's command as a shell-tool string: a script as is; an argv `bash -lc SCRIPT`
    as its script (what the agent meant to run); any other argv joined with shell quoting."""
    if isinstance(command, str):
        return command

    extracted = extract_shell_script(command)
    return extracted[1] if extracted else shlex.join(command)


def decided_by(decided: Decided) -> str:
    """The strictest rule that matched a segment, or the heuristics when none did."""
    hits = [hit for segment in decided.explanation.segments for hit in segment.rules]
    if not hits:
        return "no rule (heuristics)"
    strictest = max(hits, key=lambda h: h.decision.rank)
    where = f" {strictest.path}:{strictest.line}" if strictest.path else ""
    return f"rule{where} `{' '.join(strictest.matched_prefix)}` {strictest.decision.value}"


def round_trip(
    source: Source,
    policy: Policy,
    *,
    history: Iterable[HistoryCommand] = (),
    context: ExecContext | None = None,
) -> tuple[Row, ...]:
    """One row per entry command, then one per distinct history record as replay counts them
    (command and escalation request); ShellGate's column is replay's decision."""

    context = context or ExecContext(approval_policy=UNTRUSTED)
    rows = []
    for command in commands_from(source):
        got = decide(command, policy, context)
        rows.append(Row(command, *source_decision(source, command),
                        _OUTCOME_KIND[got.outcome], decided_by(got), "entry"))  # fmt: skip
    for entry in replay(history, policy, context).entries.values():
        recorded, permissions = entry.key
        text = as_the_tool_sees(recorded)
        last = entry.last
        rows.append(Row(text, *source_decision(source, text), _OUTCOME_KIND[entry.decided.outcome],
                        decided_by(entry.decided), "history", recorded, permissions,
                        None if last is None else f"{last.path}:{last.line}"))  # fmt: skip
    return tuple(sorted(rows, key=lambda r: not r.differs))
