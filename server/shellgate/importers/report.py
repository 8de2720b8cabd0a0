"""The import's report, for people (text) and programs (JSON, rules-schema/import.schema.json)."""

from __future__ import annotations

import os
import re
from typing import Any

from shellgate.importers.model import Entry, Origin
from shellgate.importers.roundtrip import Row
from shellgate.importers.run import ImportResult

SCHEMA_VERSION = 1


def _origin(origin: Origin) -> dict[str, Any]:
    return {
        "path": origin.path,
        "line": origin.line,
        "column": origin.column,
        "key": origin.key,
        "text": origin.text,
    }


def _entry_ref(entry: Entry) -> dict[str, Any]:
    out = _origin(entry.origin)
    out["kind"] = entry.kind.value
    if entry.priority is not None:
        out["priority"] = round(entry.priority, 3)
    return out


def _row(row: Row) -> dict[str, Any]:
    out: dict[str, Any] = {
        "command": row.command,
        "from": row.origin,
        "source_decision": row.source.value,
        "source_entries": [_entry_ref(e) for e in row.source_by],
        "shellgate_decision": row.shellgate.value,
        "shellgate_decided_by": row.shellgate_by,
        "differs": row.differs,
        "order_change": row.order_change,
    }
    if row.origin == "history":  # the record, as `shellgate replay --format json` shows it
        recorded = row.recorded
        out["recorded"] = recorded if isinstance(recorded, str) else list(recorded or ())
        out["sandbox_permissions"] = row.sandbox_permissions
        out["where"] = row.where
    return out


def to_json(result: ImportResult) -> dict[str, Any]:
    source, tr = result.source, result.translation
    return {
        "version": SCHEMA_VERSION,
        "tool": source.tool.value,
        "files": list(source.files),
        "source_default": source.default.value,
        "combine": source.combine.value,
        "rules": [
            {
                "pattern": list(rule.pattern),
                "decision": rule.decision.value,
                "line": rule.line,
                "source": _entry_ref(rule.entry),
                "risky": rule.risky,
                "kept_risky": rule.kept_risky,
                "notes": list(rule.entry.notes),
            }
            for rule in tr.rules
        ],
        "untranslatable": [{"source": _entry_ref(r.entry), "reason": r.reason} for r in tr.refused],
        "ignored": [{"source": _origin(i.origin), "reason": i.reason} for i in source.ignored],
        "duplicates": [
            {"source": _entry_ref(entry), "same_as": _entry_ref(rule.entry)}
            for entry, rule in tr.duplicates
        ],
        "order_changes": [_row(r) for r in result.rows if r.order_change],
        "shadowed": [
            {"source": _entry_ref(e), "command": r.command, "by": _entry_ref(r.source_by[0])}
            for r in result.rows
            if r.origin == "entry"
            for e in r.shadowed
        ],
        "round_trip": [_row(r) for r in result.rows],
        "notes": [*source.notes, *result.notes],
        "rules_text": result.rules_text,
        "target": result.target,
        "written": list(result.written),
        "already_present": list(result.already_present),
    }


def _short(text: str, width: int = 60) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [
        (
            indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1]
        ).rstrip()
        for r in rows
    ]


def render_text(result: ImportResult) -> str:
    source, tr = result.source, result.translation
    title = source.tool.title
    out: list[str] = []
    files = ", ".join(_home(f) for f in source.files) or "(none found)"
    out.append(f"{title}: {len(source.entries)} shell entries in {files}")
    if result.target and result.written:
        dest = f"{len(result.written)} appended to {_home(result.target)}"
        if result.already_present:
            dest += f", {len(result.already_present)} already there"
    elif result.target and result.already_present and not result.written:
        dest = f"all already in {_home(result.target)}; nothing written"
    elif result.target:
        dest = f"for {_home(result.target)} (not written)"
    else:
        dest = "on standard output"
    out.append("")
    out.append(f"rules ({len(tr.rules)}, {dest})")
    rows = []
    for rule in tr.rules:
        extra = ""
        if rule.risky and not rule.kept_risky:
            extra = f"  allow -> prompt: {rule.risky} (--keep-risky keeps allow)"
        elif rule.kept_risky:
            extra = f"  kept allow (--keep-risky): {rule.risky}"
        for note in rule.entry.notes:
            extra += f"  note: {note}"
        rows.append(
            [
                rule.decision.value,
                " ".join(rule.pattern),
                _at(rule.entry.origin),
                _short(rule.entry.origin.text, 40) + extra,
            ]
        )
    out += _table(rows)
    if tr.refused:
        out.append("")
        out.append(f"untranslatable ({len(tr.refused)}): nothing written for these")
        out += _table(
            [
                [
                    r.entry.kind.value,
                    _at(r.entry.origin),
                    _short(r.entry.origin.text, 40),
                    r.reason,
                ]
                for r in tr.refused
            ]
        )
    if source.ignored:
        out.append("")
        out.append(f"ignored ({len(source.ignored)}): not about shell commands")
        out += _table(
            [[_at(i.origin), _short(i.origin.text, 40), i.reason] for i in source.ignored]
        )
    if tr.duplicates:
        out.append("")
        out.append(f"duplicates ({len(tr.duplicates)}): the same rule as an earlier entry")
        out += _table(
            [
                [_at(e.origin), _short(e.origin.text, 40), f"same as {_at(r.entry.origin)}"]
                for e, r in tr.duplicates
            ]
        )
    order = [r for r in result.rows if r.order_change]
    if order:
        out.append("")
        out.append(
            f"order ({len(order)}): {title} lets its own order decide; Codex's strictest rule wins"
        )
        out += _table(
            [
                [
                    r.command,
                    f"{title} {r.source.value} ({_by(r.source_by[0])})",
                    f"ShellGate {r.shellgate.value}",
                    f"({_rule_home(r.shellgate_by)})",
                ]
                for r in order
            ]
        )
    shadowed = {
        (_at(e.origin), _at(r.source_by[0].origin)): (e, r)
        for r in result.rows
        if r.origin == "entry" and r.source_by
        for e in r.shadowed
    }
    if shadowed:
        out.append("")
        out.append(
            f"shadowed ({len(shadowed)}): entries a stricter one overrides, in {title} and in "
            "Codex alike"
        )
        out += _table(
            [
                [
                    _at(e.origin),
                    _short(e.origin.text, 40),
                    f"`{r.command}`: {r.source.value} by {_by(r.source_by[0])}",
                ]
                for e, r in shadowed.values()
            ]
        )
    if source.notes or result.notes:
        out.append("")
        out.append("notes")
        out += [f"  {_home(note)}" for note in (*source.notes, *result.notes)]
    differ = sum(1 for r in result.rows if r.differs)
    out.append("")
    out.append(f"round trip ({len(result.rows)} commands, {differ} decided differently)")
    # The origin column only when history rows mix with the entries' own commands.
    mixed = any(r.origin == "history" for r in result.rows)
    table = [["", *(["from"] if mixed else []), "command", title, "ShellGate",
              "decided by (ShellGate) / by (source)"]]  # fmt: skip
    for r in result.rows:
        by = _by(r.source_by[0]) if r.source_by else f"{title} default"
        table.append(
            [
                "!" if r.differs else " ",
                *([r.origin] if mixed else []),
                _short(r.command, 40) + _escalation(r),
                r.source.value,
                r.shellgate.value,
                f"{_rule_home(r.shellgate_by)} / {by}",
            ]
        )
    out += _table(table)
    return "\n".join(out) + "\n"


def _escalation(row: Row) -> str:
    """An agent's escalation request, which a record is decided with."""
    return f" [{row.sandbox_permissions}]" if row.sandbox_permissions else ""


def _by(entry: Entry) -> str:
    where = _at(entry.origin)
    if entry.priority is not None:
        return f"{where} priority {entry.priority:.3f}"
    return where


def _at(origin: Origin) -> str:
    return _home(origin.where())


def _rule_home(by: str) -> str:
    """`rule PATH:LINE …`: the path only (the pattern's words stay as written)."""
    if not by.startswith("rule "):
        return by
    path, sep, rest = by[5:].partition(" ")
    return f"rule {_home(path)}{sep}{rest}"


def _home(text: str) -> str:
    """Paths under $HOME as `~/…`, as the user would type them (the text report only: JSON
    keeps them whole). Only where the text starts with the path or has it after a space or
    `(`: our own words about files, never a command (commands are not passed here)."""
    home = os.path.expanduser("~").rstrip("/")
    if not home:
        return text
    return re.sub(rf"(^|[ (]){re.escape(home)}/", r"\1~/", text)
