"""`shellgate replay`: past commands (shell histories, agent transcripts) through the rules.

Exit codes: 0 replayed, 1 `--fail-on` met, 2 usage, 3 rules that cannot be loaded (now or
`--against`). Nothing is written or sent anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shellgate.cli import common
from shellgate.rules.errors import RulesError

if TYPE_CHECKING:
    from shellgate.approval.context import ExecContext
    from shellgate.codexconfig.layers import RulesLayer
    from shellgate.replay.against import Comparison
    from shellgate.replay.engine import Replay

PROG = "shellgate replay"
EXIT_FAIL_ON = 1
EXIT_RULES = 3


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Replay what you and your agents ran through the rules Codex would load: "
        "what would run, ask or be refused; each rule's hits; the prefixes that ask most; with "
        "--against, what another revision of the rules would decide differently.",
        epilog="SOURCE: a file or folder, optionally FORMAT:PATH with FORMAT one of bash, zsh, "
        "fish, codex, claude-code, gemini, shellgate. None: every history found in the default "
        "places. Exit status: 0 replayed, 1 --fail-on met, 2 usage, 3 broken rules.",
    )
    p.add_argument("sources", nargs="*", metavar="SOURCE")
    # One FILE a flag, as `check`: `--rules FILE SOURCE` must not read SOURCE as rules.
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="an extra rules file (repeatable), loaded after the user and project "
                   "layers")  # fmt: skip
    p.add_argument("--codex-home", metavar="DIR",
                   help="Codex's home (default: $CODEX_HOME, else ~/.codex): its rules, and its "
                   "sessions when no SOURCE is given")  # fmt: skip
    p.add_argument("--project", metavar="DIR",
                   help="a project you trust: its .codex/rules/*.rules load too")
    p.add_argument("--approval-policy", default="on-request", metavar="POLICY",
                   help="untrusted, on-request (default), on-failure, never, or granular JSON")
    p.add_argument("--sandbox", default="workspace-write",
                   choices=["read-only", "workspace-write", "danger-full-access"])
    p.add_argument("--against", metavar="REV|DIR|FILE",
                   help="compare with other rules: a git revision of the loaded rules, a "
                   "folder or a file")  # fmt: skip
    p.add_argument("--format", default="text", choices=["text", "json", "markdown"])
    p.add_argument("--fail-on", choices=["loosened", "tightened", "any"],
                   help="with --against: exit 1 when a past decision loosens / tightens / "
                   "changes")  # fmt: skip
    p.add_argument("--redact", action="store_true",
                   help="mask what looks like a credential in the commands shown")
    return p


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return common.exit_status(exc)
    if args.fail_on and not args.against:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: --fail-on needs --against", file=sys.stderr)
        return common.EXIT_USAGE
    if (bad := common.rules_folders(PROG, args.codex_home, args.project)) is not None:
        return bad
    approval = common.approval_policy(PROG, args.approval_policy)
    if isinstance(approval, int):
        return approval

    # deferred: once the arguments are parsed (`--help` and usage errors answer without it)
    from shellgate.replay.sources import SourceError, default_sources, parse_source

    try:
        sources = tuple(parse_source(s) for s in args.sources)
    except SourceError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return common.EXIT_USAGE
    if not sources:
        env = dict(os.environ)
        if args.codex_home:
            env["CODEX_HOME"] = os.path.abspath(args.codex_home)
        sources = default_sources(env)
        if not sources:
            print(f"{PROG}: error: no history found in the default places: name a SOURCE",
                  file=sys.stderr)  # fmt: skip
            return common.EXIT_USAGE
    codex_home = Path(os.path.abspath(args.codex_home)) if args.codex_home else None
    project = Path(os.path.abspath(args.project)) if args.project else None
    # The layers Codex would load for a session started here (the project's only if trusted).
    loaded = common.load_config(PROG, codex_home=codex_home, project=project, cwd=os.getcwd(),
                                extra_rules=args.rules, consequence="no replay: fix the rules",
                                status=EXIT_RULES)  # fmt: skip
    if isinstance(loaded, int):
        return loaded
    config, policy = loaded
    layers = config.layers
    common.note_ignored_project(PROG, config.trust)
    session = common.session(PROG, config, approval, args.sandbox, status=EXIT_RULES)
    if isinstance(session, int):
        return session

    # deferred: replay's machinery once the arguments are parsed
    from shellgate.approval.context import ExecContext
    from shellgate.replay.engine import replay
    from shellgate.replay.model import ReadStats
    from shellgate.replay.sources import read_sources

    context = ExecContext(approval_policy=session.approval_policy, sandbox=session.sandbox,
                          fs_policy_has_denied_reads=bool(session.deny_read))
    stats = ReadStats()
    show = _progress() if args.format == "text" and sys.stderr.isatty() else None
    result = replay(read_sources(sources, stats), policy, context, progress=show)
    if show is not None:
        sys.stderr.write("\r\033[K")

    comparison: Comparison | None = None
    if args.against:
        compared = _compare(args.against, layers, result, context)
        if isinstance(compared, int):
            return compared
        comparison = compared

    # deferred: the report's modules once the arguments are parsed
    from shellgate.replay.redact import redact as mask
    from shellgate.replay.render import render_markdown, render_text, to_json
    from shellgate.replay.report import build_report

    report = build_report(result, policy, context, stats)
    redact = mask if args.redact else _same
    entries = sorted(result.entries.values(), key=lambda e: -e.count)
    if args.format == "json":
        data = to_json(report, entries, comparison, redact)
        # Indented for a person at a terminal; compact otherwise: `indent` turns off json's C
        # encoder, which made a 100 000-line report's output cost a second.
        indent = 2 if sys.stdout.isatty() else None
        sys.stdout.write(json.dumps(data, indent=indent, ensure_ascii=False) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(report, comparison, redact))
    else:
        sys.stdout.write(render_text(report, comparison, redact))
    if comparison is not None and args.fail_on:
        loosened = comparison.count(loosened=True)
        tightened = comparison.count(loosened=False)
        hit = {"loosened": loosened, "tightened": tightened, "any": loosened + tightened}
        if hit[args.fail_on]:
            return EXIT_FAIL_ON
    return 0


def _same(text: str) -> str:
    return text


def _progress() -> Callable[[int], None]:

    start = time.monotonic()

    def show(done: int) -> None:
        rate = done / max(time.monotonic() - start, 1e-6)
        filled = (done // 1000) % 20
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (20 - filled)}] {done} commands "
                         f"({rate:,.0f}/s)")  # fmt: skip
        sys.stderr.flush()

    return show


def _compare(
    spec: str, layers: tuple[RulesLayer, ...], result: Replay, context: ExecContext
) -> Comparison | int:
    # deferred: replay.against (~65 ms) only for --against
    from shellgate.codexconfig.layers import load_layers
    from shellgate.replay.against import AgainstError, compare, other_layers

    try:
        with other_layers(spec, layers) as (others, names):
            try:
                other = load_layers(others)
            except RulesError as exc:
                print(f"{PROG}: error: --against {spec}: {exc}", file=sys.stderr)
                return EXIT_RULES
            return compare(list(result.entries.values()), None, other, context, spec, names)
    except AgainstError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return common.EXIT_USAGE
