"""One import, end to end: read the source, translate, check the rules load, round-trip,
and (with a target) append under the lock. Everything is decided before anything is written.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from shellgate.approval.context import ExecContext
from shellgate.codexconfig.resolve import codex_layers_for
from shellgate.importers import claude_code, gemini, vscode
from shellgate.importers.model import Source, Tool
from shellgate.importers.roundtrip import Row, round_trip, source_decision
from shellgate.importers.translate import Refusal, Rule, Translation, translate
from shellgate.replay.model import HistoryCommand
from shellgate.rules.amend import append_rule_lines
from shellgate.rules.decision import Decision
from shellgate.rules.loader import parse_text, read_rules_file
from shellgate.rules.policy import Policy

_READERS = {Tool.CLAUDE_CODE: claude_code, Tool.GEMINI: gemini, Tool.VSCODE: vscode}
HEADER = "# Imported by `shellgate import`; each rule's justification names its source."
# Verified with the real Claude Code 2.1.332 (tests/importers/test_real_sources.py).
CLAUDE_READ_ONLY = (
    "Claude Code's own read-only check runs, unasked, commands no entry allows "
    "(`git status --porcelain`, `ls`, `cat .git/HEAD` ran with an empty allow list; "
    "`git status --help` was asked about); the round trip does not model that check, so a row "
    "decided by the Claude Code default (ask) may run there without asking"
)


@dataclass(frozen=True, slots=True)
class ImportResult:
    source: Source
    translation: Translation
    rules_text: str  # the new rules (all of them, whether or not the target had them)
    rows: tuple[Row, ...]
    target: str | None
    already_present: tuple[str, ...]  # rule lines the target already held (not written again)
    written: tuple[str, ...]  # rule lines appended to the target
    notes: tuple[str, ...] = ()  # about the target and the rules Codex loads with it


def default_files(tool: Tool, cwd: Path) -> list[Path]:
    """The tool's settings (and policy) files that exist, in its usual places."""
    found: list[Path] = _READERS[tool].default_files(cwd)
    return found


def read_source(tool: Tool, files: Sequence[Path]) -> Source:
    source: Source = _READERS[tool].read(files)
    return source


def run_import(
    tool: Tool,
    files: Sequence[Path],
    *,
    target: Path | None = None,
    keep_risky: bool = False,
    write: bool = False,
    history: Iterable[HistoryCommand] = (),
    context: ExecContext | None = None,
    cwd: Path | None = None,
    codex_home: Path | None = None,
) -> ImportResult:
    """Raises ImportInputError (bad source), RulesError (a broken target), AmendError.

    `history` is records as replay's readers give them; each distinct one is a round-trip row
    decided as `shellgate replay` decides it.

    With `cwd`, the round trip also loads the rules Codex would load for a session there
    (`codex_layers_for`: `$CODEX_HOME/rules`, trusted projects' `.codex/rules`), so that it
    shows what will happen, and the report says when the target is not among them."""
    source = read_source(tool, files)
    translation = _refuse_order(source, translate(source.entries, keep_risky=keep_risky))
    lines = [rule.line for rule in translation.rules]
    existing = ""
    if target is not None and target.exists():
        existing = read_rules_file(str(target))
    name = str(target) if target is not None else "<imported rules>"
    present = {line.removesuffix("\r") for line in existing.split("\n")}
    # The same rule already there (the same pattern and decision, whatever its wording, e.g.
    # Codex's own "don't ask again" line) is not written again.
    held = {(r.first, r.rest, r.decision) for r in _check_loads(existing, [], name).rules}
    already = tuple(
        rule.line
        for rule in translation.rules
        if rule.line in present or _key(rule.pattern, rule.decision) in held
    )
    new_lines = [line for line in lines if line not in already]
    if new_lines and not existing.strip():
        new_lines.insert(0, HEADER)  # a new file says where its rules came from
    policy = _check_loads(existing, new_lines, name)
    notes: list[str] = []
    if cwd is not None:
        others, note = _codex_layers(cwd, codex_home, target)
        loaded = Policy()
        for path in others:  # one by one, with spans: the report names file and line
            loaded = loaded.merge(_check_loads(read_rules_file(path), [], path))
        policy = loaded.merge(policy)
        notes += [note] if note else []
    rows = round_trip(source, policy, history=history, context=context)
    if tool is Tool.CLAUDE_CODE and any(not row.source_by for row in rows):
        notes.append(CLAUDE_READ_ONLY)
    rules_text = "\n".join([HEADER, *lines]) + "\n" if lines else ""
    written: tuple[str, ...] = ()
    if write and target is not None and any(line != HEADER for line in new_lines):
        written = append_rule_lines(
            target,
            new_lines,
            check=lambda text, new: _verify(text, new, name),
        )
        written = tuple(line for line in written if line != HEADER)
    return ImportResult(
        source,
        translation,
        rules_text,
        rows,
        name if target else None,
        already,
        written,
        tuple(notes),
    )


def _refuse_order(source: Source, translation: Translation) -> Translation:
    """A rule whose own command the source lets it decide over a stricter entry that also
    matches (Gemini: a higher-priority allow over a deny) would be dead under Codex's
    strictest-wins: refused, with the entry that overrules it. The order section shows the
    commands that change."""
    keep: list[Rule] = []
    refused = list(translation.refused)
    for rule in translation.rules:
        kind, entries = source_decision(source, shlex.join(rule.pattern))
        stricter = [e for e in entries[1:] if e.kind.rank > kind.rank]
        if entries and entries[0] is rule.entry and stricter:
            over = stricter[0]
            refused.append(
                Refusal(
                    rule.entry,
                    f"{source.tool.title} lets it override the {over.kind.value} at "
                    f"{over.origin.where()} ({over.origin.text}) by priority; Codex's strictest "
                    f"rule wins, so no rule can {kind.value} `{shlex.join(rule.pattern)}` there",
                )
            )
        else:
            keep.append(rule)
    if len(keep) == len(translation.rules):
        return translation
    return Translation(tuple(keep), tuple(refused), translation.duplicates)


def _codex_layers(
    cwd: Path, codex_home: Path | None, target: Path | None
) -> tuple[list[str], str | None]:
    """The files Codex loads for `cwd` other than the target, and a note when the target is
    not where Codex looks (its rules would do nothing)."""

    layers, _trust = codex_layers_for(cwd, codex_home=codex_home)
    # .rules files only: the round trip's `codex execpolicy check` cannot read requirements.toml
    files = [f for layer in layers if layer.name != "requirements" for f in layer.files]
    folders = [Path(layer.folder).resolve() for layer in layers if layer.folder]
    if target is None:
        return files, None
    resolved = target.resolve()
    others = [f for f in files if Path(f).resolve() != resolved]
    if resolved.suffix != ".rules" or resolved.parent not in folders:
        return others, (
            f"{target} is not a file Codex loads for {cwd} (it reads *.rules in "
            + ", ".join(str(f) for f in folders)
            + "); the round trip shows the rules as if it did"
        )
    return others, None


def _key(
    pattern: tuple[str, ...], decision: Decision
) -> tuple[str, tuple[tuple[str, ...], ...], Decision]:
    return pattern[0], tuple((word,) for word in pattern[1:]), decision


def _verify(existing: str, new_lines: Sequence[str], name: str) -> None:
    _check_loads(existing, new_lines, name)


def _check_loads(existing: str, new_lines: Sequence[str], name: str) -> Policy:
    """The target as it will be, loaded by the real engine (examples checked). A failure here
    is refused before anything is written."""
    sep = "" if not existing or existing.endswith("\n") else "\n"
    text = existing + sep + "".join(line + "\n" for line in new_lines)
    parsed = parse_text(text, name)
    if parsed.error is not None:
        raise parsed.error
    return Policy(parsed.rules, parsed.network_rules, parsed.host_executables)
