"""A replay report as text (for people), JSON (rules-schema/replay.schema.json) or Markdown
(a pull-request comment). Commands pass through `redact` when asked: histories hold secrets."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from shellgate.approval.requirement import requirement_type
from shellgate.replay.against import Comparison
from shellgate.replay.engine import Decided, Entry, Outcome
from shellgate.replay.report import Report

SCHEMA_VERSION = 1
SHOWN_CHANGES = 20


def ago(stamp: float | None, now: float | None = None) -> str:
    if stamp is None:
        return "time unknown"
    seconds = max(0.0, (time.time() if now is None else now) - stamp)
    for size, unit in ((86400 * 365, "year"), (86400 * 30, "month"), (86400, "day"),
                       (3600, "hour"), (60, "minute")):  # fmt: skip
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n > 1 else ''} ago"
    return "just now"


def _iso(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _where(key: tuple[str, int, int], names: dict[str, str]) -> str:
    return f"{names.get(key[0], key[0])}:{key[1]}"


def _responsible(decided: Decided, names: dict[str, str]) -> str:
    if decided.deciding:
        return ", ".join(_where(k, names) for k in decided.deciding)
    return "Codex's heuristics"


def _text_of(entry: Entry) -> str:
    return entry.last.text if entry.last is not None else ""


def to_json(
    report: Report, entries: Sequence[Entry], comparison: Comparison | None,
    redact: Callable[[str], str],
) -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {
        "version": SCHEMA_VERSION,
        "commands": report.commands,
        "distinct": report.distinct,
        "outcomes": {o.value: n for o, n in report.outcomes.items()},
        "sources": dict(sorted(report.sources.items())),
        "skipped": {"count": report.stats.skipped, "files": report.stats.files,
                    "first": [redact(n) for n in report.stats.named]},
        "rules": [{
            "file": r.key[0], "line": r.key[1], "column": r.key[2], "pattern": r.pattern,
            "decision": r.decision.value, "layer": r.layer, "hits": r.hits,
            "distinct": r.distinct, "last_seen": _iso(r.last_seen),
            "examples": [redact(e) for e in r.examples],
        } for r in report.rules],
        "never_hit": [{"file": r.key[0], "line": r.key[1], "pattern": r.pattern}
                      for r in report.never_hit],
        "suggestions": [{
            "prefix": list(s.prefix), "rule": s.rule_text, "asked": s.asked,
            "removes": s.removes,
            "admits": [{"command": list(v.argv), "why": v.what} for v in s.admits],
            "examples": [redact(e) for e in s.examples],
        } for s in report.suggestions],
        "decisions": [_decision(e, redact) for e in entries],
    }  # fmt: skip
    if comparison is not None:
        out["against"] = {
            "label": comparison.label,
            "loosened": comparison.count(loosened=True),
            "tightened": comparison.count(loosened=False),
            "changes": [{
                "from": c.before.outcome.value, "to": c.after.outcome.value,
                "command": redact(_text_of(c.entry)), "count": c.entry.count,
                "before_rules": [_where(k, comparison.names) for k in c.before.deciding],
                "after_rules": [_where(k, comparison.names) for k in c.after.deciding],
            } for c in comparison.changes],
        }  # fmt: skip
    return out


def _decision(entry: Entry, redact: Callable[[str], str]) -> dict[str, Any]:

    last = entry.last
    command = entry.key[0]
    return {
        "command": redact(command) if isinstance(command, str) else [redact(t) for t in command],
        "sandbox_permissions": entry.key[1],
        "count": entry.count,
        "outcome": entry.decided.outcome.value,
        "requirement": requirement_type(entry.decided.explanation.requirement),
        "rules": [f"{k[0]}:{k[1]}" for k in entry.decided.rules],
        "last_seen": _iso(None if last is None else last.time),
        "cwd": None if last is None else last.cwd,
        "sources": dict(sorted(entry.sources.items())),
        "where": None if last is None else f"{last.path}:{last.line}",
    }


def _outcome_lines(report: Report) -> list[tuple[str, int, str]]:
    total = max(report.commands, 1)
    words = {Outcome.ALLOW: "run without asking", Outcome.PROMPT: "ask first",
             Outcome.FORBIDDEN: "refused"}  # fmt: skip
    return [(words[o], n, f"{100 * n / total:.0f}%") for o, n in report.outcomes.items()]


def render_text(
    report: Report, comparison: Comparison | None, redact: Callable[[str], str]
) -> str:
    lines: list[str] = []
    sources = ", ".join(f"{k} {v}" for k, v in sorted(report.sources.items())) or "none"
    lines.append(f"Replayed {report.commands} commands ({report.distinct} distinct) from "
                 f"{report.stats.files} files: {sources}")  # fmt: skip
    for word, n, share in _outcome_lines(report):
        lines.append(f"  {word:<20} {n:>7}  {share:>4}")
    if report.stats.skipped:
        lines.append(f"Skipped {report.stats.skipped} unreadable entries, first:")
        lines.extend(f"  {redact(n)}" for n in report.stats.named)
    if report.rules:
        lines.append("")
        lines.append("Rules (hits · last seen):")
        for r in report.rules:
            seen = "never matched" if r.hits == 0 else f"{r.hits} · {ago(r.last_seen)}"
            lines.append(f"  {r.key[0]}:{r.key[1]}  {r.decision.value:<9} {r.pattern}  {seen}")
    never = report.never_hit
    if never:
        lines.append(f"Never matched: {len(never)} of {len(report.rules)} rules")
    if report.suggestions:
        lines.append("")
        lines.append("Asks most (and the allow rule that would stop it):")
        for s in report.suggestions:
            times = "time" if s.asked == 1 else "times"
            lines.append(f"  {' '.join(s.prefix)}: asked {s.asked} {times}; {s.rule_text} "
                         f"would let {s.removes} run unasked")  # fmt: skip
            for v in s.admits:
                lines.append(f"      it would also allow: {' '.join(v.argv)}  ({v.what})")
    if comparison is not None:
        lines.append("")
        lines.extend(_comparison_text(comparison, redact))
    return "\n".join(lines) + "\n"


def _comparison_text(comparison: Comparison, redact: Callable[[str], str]) -> list[str]:
    n = sum(c.entry.count for c in comparison.changes)
    if not comparison.changes:
        return [f"Against {comparison.label}: no past decision changes"]
    lines = [f"Against {comparison.label}: {n} past decisions change "
             f"({comparison.count(loosened=True)} loosened, "
             f"{comparison.count(loosened=False)} tightened)"]  # fmt: skip
    for (before, after), changes in comparison.groups().items():
        total = sum(c.entry.count for c in changes)
        lines.append(f"  {before.label} → {after.label} ({total}):")
        for c in changes[:SHOWN_CHANGES]:
            lines.append(f"    {redact(_text_of(c.entry))}  ×{c.entry.count}   was: "
                         f"{_responsible(c.before, comparison.names)} · now: "
                         f"{_responsible(c.after, comparison.names)}")  # fmt: skip
        if len(changes) > SHOWN_CHANGES:
            lines.append(f"    … and {len(changes) - SHOWN_CHANGES} more")
    return lines


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ⏎ ")


def render_markdown(
    report: Report, comparison: Comparison | None, redact: Callable[[str], str]
) -> str:
    out = ["### ShellGate replay", ""]
    out.append(f"{report.commands} commands ({report.distinct} distinct) replayed.")
    out.append("")
    out.append("| outcome | commands | share |")
    out.append("|---|---:|---:|")
    out.extend(f"| {w} | {n} | {s} |" for w, n, s in _outcome_lines(report))
    if comparison is not None:
        out.append("")
        if not comparison.changes:
            out.append(f"**Against `{comparison.label}`: no past decision changes.**")
        else:
            out.append(f"**Against `{comparison.label}`: {comparison.count(loosened=True)} "
                       f"loosened, {comparison.count(loosened=False)} tightened.**")  # fmt: skip
            out.append("")
            out.append("| change | command | times | was | now |")
            out.append("|---|---|---:|---|---|")
            for c in comparison.changes[:50]:
                out.append(
                    f"| {c.before.outcome.label} → {c.after.outcome.label} | "
                    f"`{_md(redact(_text_of(c.entry)))}` | {c.entry.count} | "
                    f"{_md(_responsible(c.before, comparison.names))} | "
                    f"{_md(_responsible(c.after, comparison.names))} |"
                )
    if report.never_hit:
        out.append("")
        out.append(f"<details><summary>{len(report.never_hit)} rules never matched</summary>")
        out.append("")
        out.extend(f"- `{r.key[0]}:{r.key[1]}` {_md(r.pattern)}" for r in report.never_hit)
        out.append("</details>")
    if report.suggestions:
        out.append("")
        out.append("| asks most | asked | an allow rule would stop | also admits |")
        out.append("|---|---:|---:|---|")
        for s in report.suggestions:
            admits = "; ".join(f"`{_md(' '.join(v.argv))}`" for v in s.admits) or "nothing known"
            out.append(f"| `{_md(' '.join(s.prefix))}` | {s.asked} | {s.removes} | {admits} |")
    return "\n".join(out) + "\n"
