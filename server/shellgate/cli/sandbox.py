"""`shellgate sandbox --mode read-only|workspace-write [--network off|full] -- CMD...`: run one
command in ShellGate's bubblewrap sandbox, the counterpart of `codex sandbox linux`.

The admin's `deny_read` (/etc/codex/requirements.toml) is masked unless
`--exclude-managed-config` (the inverse of `codex sandbox --include-managed-config`); with it
present, `--mode danger-full-access` is clamped to read-only, as Codex clamps it.

No rules, no approval: the command runs, confined. Its output and exit status are its own, and
a sandbox denial is said on stderr, where the agent's model reads it. Exit 125 when the sandbox
cannot be set up (the command never runs unconfined instead), 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from shellgate.cli import common
from shellgate.cli.signals import until_signalled
from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from shellgate.exec.runner import AttemptResult

PROG = "shellgate sandbox"
EXIT_SANDBOX_ERROR = 125


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} --mode read-only|workspace-write|danger-full-access [--network off|full] "
        "[--cwd DIR] [--writable-root DIR ...] [--exclude-managed-config] [--timeout SECONDS] "
        "-- CMD...",
        description="Run CMD in ShellGate's bubblewrap sandbox (Codex's filesystem and network "
        "limits): read-only, or writable only in the working directory, /tmp and the given "
        "roots, with .git, .codex and .agents kept read-only; what the admin's deny_read "
        "names unreadable. danger-full-access runs CMD unconfined, unless deny_read is set: "
        "then read-only, as Codex clamps it.",
        epilog="exit status: the command's, or 125 when the sandbox cannot be set up, 2 usage",
    )
    p.add_argument(
        "--mode", required=True, choices=["read-only", "workspace-write", "danger-full-access"]
    )
    p.add_argument(
        "--network",
        choices=["off", "full"],
        default="off",
        help="off (default: no network namespace access) or full",
    )
    p.add_argument("--cwd", metavar="DIR", help="run there (default: the current directory)")
    p.add_argument(
        "--writable-root",
        action="append",
        default=[],
        metavar="DIR",
        help="another writable directory in workspace-write (repeatable)",
    )
    p.add_argument(
        "--exclude-managed-config",
        action="store_true",
        help="ignore the deny_read of /etc/codex/requirements.toml (applied by default)",
    )
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="kill the command after")
    return p


def main(argv: list[str]) -> int:
    options, command = common.split_at_dashes(argv)
    parser = _parser()
    try:
        args = parser.parse_args(options)
    except SystemExit as exc:
        return common.exit_status(exc)
    if not command:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: give the command after `--`", file=sys.stderr)
        return common.EXIT_USAGE
    cwd = common.workdir(PROG, args.cwd)
    if isinstance(cwd, int):
        return cwd

    # deferred: the sandbox's machinery (probe, runner) once the arguments are parsed
    from shellgate.codexconfig.requirements import RequirementsError
    from shellgate.exec.deny_read import REQUIREMENTS, managed_deny_read
    from shellgate.exec.probe import probe_sandbox
    from shellgate.exec.runner import run_attempt
    from shellgate.exec.sandbox import FsAccess, NetworkAccess, SandboxSetupError, build_spec, clamp
    from shellgate.exec.sandbox import default_runtime_dir as runtime_dir

    try:
        deny_read = () if args.exclude_managed_config else managed_deny_read()
    except RequirementsError as exc:
        print(f"{PROG}: {exc}; the command was not run", file=sys.stderr)
        return EXIT_SANDBOX_ERROR
    fs = clamp(FsAccess(args.mode), deny_read)
    if fs is not FsAccess(args.mode):
        print(f"{PROG}: {args.mode} clamped to {fs.value}: deny_read is set in {REQUIREMENTS}",
              file=sys.stderr)  # fmt: skip
    stdin = None if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    if fs is FsAccess.FULL:
        unconfined = run_attempt(command, cwd=cwd, spec=None, timeout=args.timeout, stdin=stdin)
        return _report(asyncio.run(until_signalled(unconfined)), args.mode)
    probe = probe_sandbox()
    if not probe.ok:
        print(f"{PROG}: {probe.reason}; the command was not run", file=sys.stderr)
        return EXIT_SANDBOX_ERROR
    try:
        spec = build_spec(
            fs,
            cwd,
            extra_roots=args.writable_root,
            network=NetworkAccess(args.network),
            runtime_dir=runtime_dir(),
            deny_read=deny_read,
        )
    except (SandboxSetupError, OSError) as exc:
        print(f"{PROG}: {exc}; the command was not run", file=sys.stderr)
        return EXIT_SANDBOX_ERROR
    attempt = run_attempt(
        command, cwd=cwd, spec=spec, probe=probe, timeout=args.timeout, stdin=stdin
    )
    return _report(asyncio.run(until_signalled(attempt)), fs.value)


def _report(result: AttemptResult | signal.Signals, mode: str) -> int:
    # deferred: as in main, once the arguments are parsed
    from shellgate.exec.denial import Outcome

    if isinstance(result, signal.Signals):
        return 128 + result
    sys.stdout.write(result.stdout)
    sys.stdout.flush()
    sys.stderr.write(result.stderr)
    outcome = result.classification.outcome
    if outcome is Outcome.SANDBOX_ERROR:
        why = result.classification.reason or result.stderr.strip()
        print(f"{PROG}: the sandbox failed: {why}", file=sys.stderr)
        return EXIT_SANDBOX_ERROR
    if outcome.is_denial:
        why = result.classification.reason
        print(
            f"{PROG}: denied by the {mode} sandbox{': ' + why if why else ''}", file=sys.stderr
        )
    if result.timed_out:
        print(f"{PROG}: the command timed out and was stopped", file=sys.stderr)
        return 124
    return result.exit_code if result.exit_code is not None else 1

