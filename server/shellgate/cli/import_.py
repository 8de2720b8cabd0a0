"""`shellgate import claude-code|gemini|vscode [FILE ...] [--write RULES_FILE] [--keep-risky]
[--format text|json]`: another tool's command allowlist as Codex rules.

Without --write the rules go to standard output and the report to standard error; with it the
rules are appended to RULES_FILE under Codex's lock (never twice) and the report goes to
standard output. `--format json` prints one JSON object (rules-schema/import.schema.json).
`--history [SOURCE ...]` adds each distinct record of those histories (replay's readers and
replay's decision) to the round trip. Exit status: 0 done, 1 bad input (file:line:column on
stderr, or a history that cannot be read; nothing written), 2 usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from shellgate.cli.common import exit_status
from shellgate.rules.errors import RulesError

_TOOLS = ("claude-code", "gemini", "vscode")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="shellgate import",
        description="Import Claude Code, Gemini CLI or VS Code command allowlists as Codex rules.",
    )
    parser.add_argument("tool", choices=_TOOLS)
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="settings or policy files (default: the usual places)",
    )
    parser.add_argument("--write", metavar="RULES_FILE", help="append the rules to this file")
    parser.add_argument(
        "--keep-risky", action="store_true", help="keep allow on runners, interpreters, sed, awk…"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--cwd", default=".", help="the project whose settings and Codex rules are read"
    )
    parser.add_argument(
        "--codex-home", help="Codex's home for the round trip (default $CODEX_HOME or ~/.codex)"
    )
    parser.add_argument(
        "--commands",
        metavar="FILE",
        help="more commands for the round trip, one a line (e.g. from your shell history)",
    )
    parser.add_argument(
        "--history",
        nargs="*",
        metavar="SOURCE",
        help="also round-trip each distinct command of these histories, read as "
        "`shellgate replay` reads them (no SOURCE: the default places)",
    )
    parser.add_argument(
        "--approval-policy",
        default="untrusted",
        help="the policy ShellGate decides under in the round trip (default: untrusted)",
    )
    parser.add_argument(
        "--sandbox",
        default="workspace-write",
        choices=("read-only", "workspace-write", "danger-full-access"),
        help="the sandbox ShellGate decides under in the round trip (default: workspace-write, "
        "as `shellgate replay`)",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exit_status(exc)

    # deferred: the importers (importers.report ~90 ms) once the arguments are parsed
    from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
    from shellgate.importers.model import Tool
    from shellgate.importers.report import render_text, to_json
    from shellgate.importers.run import default_files, run_import

    tool = Tool(args.tool)
    try:
        context = ExecContext(
            approval_policy=ApprovalPolicy.parse(args.approval_policy),
            sandbox=SandboxMode(args.sandbox),
        )
    except ValueError as exc:
        print(f"shellgate import: error: {exc}", file=sys.stderr)
        return 2
    cwd = Path(args.cwd).resolve()
    files = [Path(f) for f in args.files] or default_files(tool, cwd)
    if not files:
        print(
            f"shellgate import: no {tool.title} settings found in the usual places; "
            "name the files to import",
            file=sys.stderr,
        )
        return 1
    history: list[Any] = []  # replay's HistoryCommand records
    if args.commands:
        got = _read_commands(args.commands)
        if isinstance(got, int):
            return got
        history = got
    read = None
    if args.history is not None:
        found = _read_history(args.history, args.codex_home)
        if isinstance(found, int):
            return found
        read, records = found
        history += records
    try:
        result = run_import(
            tool,
            files,
            target=Path(args.write) if args.write else None,
            keep_risky=args.keep_risky,
            write=bool(args.write),
            history=history,
            context=context,
            cwd=cwd,
            codex_home=Path(args.codex_home) if args.codex_home else None,
        )
    except RulesError as err:
        print(f"shellgate import: {err}; nothing written", file=sys.stderr)
        return 1
    distinct = sum(1 for row in result.rows if row.origin == "history")
    if args.format == "json":
        data = to_json(result)
        if read is not None:
            data["history"] = {"files": read.files, "entries": read.entries, "distinct": distinct,
                               "skipped": {"count": read.skipped, "first": read.named}}  # fmt: skip
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    report = render_text(result)
    if read is not None:
        report += _history_line(read, distinct)
    if args.write:
        sys.stdout.write(report)
    else:
        sys.stdout.write(result.rules_text)
        sys.stdout.flush()
        sys.stderr.write(report)
    return 0


def _read_commands(name: str) -> list[Any] | int:
    """--commands FILE: one script a line, as records (blank lines skipped)."""
    # deferred: only --commands reads past commands
    from shellgate.replay.model import HistoryCommand

    try:
        text = Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"shellgate import: {name}: {err}; nothing written", file=sys.stderr)
        return 1
    return [HistoryCommand(line.strip(), "commands", name, number)
            for number, line in enumerate(text.splitlines(), 1) if line.strip()]  # fmt: skip


def _read_history(specs: list[str], codex_home: str | None) -> tuple[Any, list[Any]] | int:
    """The records of the named histories (or the default places), by replay's readers:
    malformed entries are skipped and counted, as `shellgate replay` does. A source that cannot
    be read (missing, an unknown format, a file or folder that cannot be opened or read to its
    end) is an error: the round trip would silently leave its commands out."""

    # deferred: replay's readers only for --history
    from shellgate.replay.model import ReadStats
    from shellgate.replay.sources import SourceError, default_sources, parse_source, read_sources

    try:
        sources = tuple(parse_source(s) for s in specs)
    except SourceError as exc:
        return _history_error(str(exc))
    if not sources:
        env = dict(os.environ)
        if codex_home:
            env["CODEX_HOME"] = os.path.abspath(codex_home)
        sources = default_sources(env)
        if not sources:
            return _history_error("no history found in the default places: name a SOURCE")
    stats = ReadStats()
    records = list(read_sources(sources, stats))
    if stats.unreadable:
        return _history_error("; ".join(stats.unreadable))
    return stats, records


def _history_error(message: str) -> int:
    print(f"shellgate import: --history: {message}; nothing written", file=sys.stderr)
    return 1


def _history_line(stats: Any, distinct: int) -> str:
    files = f"{stats.files} file" + ("" if stats.files == 1 else "s")
    line = f"history: {stats.entries} commands ({distinct} distinct) read from {files}"
    if stats.skipped:
        line += f"; {stats.skipped} entries skipped (" + "; ".join(stats.named) + ")"
    return line + "\n"
