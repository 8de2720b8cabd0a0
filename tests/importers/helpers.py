"""Shared by the import tests: run an import on files written as users write them."""

from __future__ import annotations

from pathlib import Path

from shellgate.importers.model import Kind, Tool
from shellgate.importers.roundtrip import Row
from shellgate.importers.run import ImportResult, run_import


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def imported(tool: Tool, *files: Path, **kwargs: object) -> ImportResult:
    return run_import(tool, list(files), **kwargs)  # type: ignore[arg-type]


def rules_of(result: ImportResult) -> dict[tuple[str, ...], str]:
    return {rule.pattern: rule.decision.value for rule in result.translation.rules}


def refused_of(result: ImportResult) -> dict[str, str]:
    return {r.entry.origin.text: r.reason for r in result.translation.refused}


def row(result: ImportResult, command: str) -> Row:
    found = [r for r in result.rows if r.command == command]
    assert found, f"no round-trip row for {command!r}: {[r.command for r in result.rows]}"
    return found[0]


def decisions(result: ImportResult, command: str) -> tuple[Kind, Kind]:
    r = row(result, command)
    return r.source, r.shellgate
