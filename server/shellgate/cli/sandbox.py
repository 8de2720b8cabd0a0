"""`shellgate sandbox --mode read-only|workspace-write [--network off|full] -- CMD...`: run one
command in ShellGate's bubblewrap sandbox, the counterpart of `codex sandbox linux`.

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

PROG = "shellgate sandbox"
EXIT_SANDBOX_ERROR = 125


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} --mode read-only|workspace-write [--network off|full] [--cwd DIR] "
        "[--writable-root DIR ...] [--timeout SECONDS] -- CMD...",
        description="Run CMD in ShellGate's bubblewrap sandbox (Codex's filesystem and network "
        "limits): read-only, or writable only in the working directory, /tmp and the given "
        "roots, with .git, .codex and .agents kept read-only.",
        epilog="exit status: the command's, or 125 when the sandbox cannot be set up, 2 usage",
    )
    p.add_argument("--mode", required=True, choices=["read-only", "workspace-write"])
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

    from shellgate.exec.denial import Outcome
    from shellgate.exec.placeholders import runtime_dir
    from shellgate.exec.probe import probe_sandbox
    from shellgate.exec.runner import run_attempt
    from shellgate.exec.sandbox import FsAccess, NetworkAccess, SandboxSetupError, build_spec

    probe = probe_sandbox()
    if not probe.ok:
        print(f"{PROG}: {probe.reason}; the command was not run", file=sys.stderr)
        return EXIT_SANDBOX_ERROR
    try:
        spec = build_spec(
            FsAccess(args.mode),
            cwd,
            extra_roots=args.writable_root,
            network=NetworkAccess(args.network),
            runtime_dir=runtime_dir(),
        )
    except SandboxSetupError as exc:
        print(f"{PROG}: {exc}; the command was not run", file=sys.stderr)
        return EXIT_SANDBOX_ERROR
    stdin = None if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    attempt = run_attempt(
        command, cwd=cwd, spec=spec, probe=probe, timeout=args.timeout, stdin=stdin
    )
    result = asyncio.run(until_signalled(attempt))
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
            f"{PROG}: denied by the {args.mode} sandbox{': ' + why if why else ''}", file=sys.stderr
        )
    if result.timed_out:
        print(f"{PROG}: the command timed out and was stopped", file=sys.stderr)
        return 124
    return result.exit_code if result.exit_code is not None else 1

