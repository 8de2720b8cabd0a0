"""`shellgate run`: one command through the whole chain (rules, approval, sandbox, escalation),
asking on the terminal.

Exit status: the command's own, or
  120 bad rules (nothing runs), 121 forbidden by policy, 122 denied (by you, or unanswered in
  time), 123 aborted ("No, and stop"), 124 the command timed out,
  125 the sandbox could not be set up, 128 + N stopped by signal N, 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import signal
import sys

from shellgate.cli import common
from shellgate.cli.signals import until_signalled
from shellgate.shell import bash_reading

PROG = "shellgate run"
EXIT_RULES_ERROR = 120
EXIT_FORBIDDEN = 121
EXIT_DENIED = 122
EXIT_ABORTED = 123
EXIT_TIMEOUT = 124
EXIT_SANDBOX_ERROR = 125

USAGE = (
    "shellgate run [--approval-policy POLICY] [--sandbox MODE] [--cwd DIR] [--json-events] "
    "[--rules FILE ...] [--codex-home DIR] [--project DIR] [--writable-root DIR ...] "
    "[--network off|proxy|full] [--timeout SECONDS] [--approval-timeout SECONDS] "
    "[--approve-for-me] "
    "(-- CMD... | --shell SCRIPT)"
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, usage=USAGE, formatter_class=common.HelpFormatter,
        description="Run a command as Codex 0.169.0 would: rules and heuristics decide, you "
        "approve on the terminal when asked, bubblewrap sandboxes it, and a sandbox denial "
        "becomes a question about retrying with more permission.",
        epilog="exit status: the command's, or 120 bad rules, 121 forbidden, 122 denied, "
        "123 aborted, 124 timed out, 125 sandbox error, 2 usage",
    )  # fmt: skip
    p.add_argument(
        "--approval-policy",
        metavar="POLICY",
        help="untrusted, on-request, on-failure, never, or granular JSON (default: Codex's "
        "config files, else on-request; the admin's requirements may clamp it)",
    )
    p.add_argument(
        "--sandbox",
        choices=["read-only", "workspace-write", "danger-full-access"],
        help="the sandbox mode (default: Codex's config files, else workspace-write; the "
        "admin's requirements may clamp it)",
    )
    p.add_argument("--cwd", metavar="DIR", help="run there (default: the current directory)")
    p.add_argument(
        "--json-events",
        action="store_true",
        help="print the chain's events and the result as JSON lines on stdout",
    )
    p.add_argument(
        "--rules",
        action="extend",
        nargs="+",
        default=[],
        metavar="FILE",
        help="extra rules files, loaded after the user and project layers",
    )
    p.add_argument(
        "--codex-home",
        metavar="DIR",
        help="Codex's home (default: $CODEX_HOME, else ~/.codex): its rules load "
        "first, and amendments are appended to its rules/default.rules",
    )
    p.add_argument(
        "--project", metavar="DIR",
        help="a project you trust, whatever Codex's config.toml says: its .codex/rules/*.rules "
        "load (default: the trusted project of --cwd, as Codex decides)",
    )
    p.add_argument(
        "--writable-root",
        action="append",
        default=[],
        metavar="DIR",
        help="another writable directory in workspace-write (repeatable)",
    )
    p.add_argument(
        "--network",
        choices=["off", "proxy", "full"],
        help="off, by host through the allow-list proxy (default when socat is installed), or full",
    )
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="kill the command after")
    p.add_argument(
        "--approval-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="an unanswered question counts as denied after this (default 300)",
    )
    p.add_argument(
        "--approve-for-me", action="store_true",
        help="route approval requests through automatic review (Codex's auto-reviewer, on the "
        "model of Codex's config.toml), with on-request approvals unless --approval-policy "
        "says otherwise; as approvals_reviewer = \"auto_review\" in config.toml",
    )
    p.add_argument("--shell", metavar="SCRIPT", help="run `bash -lc SCRIPT`")
    return p  # fmt: skip


def main(argv: list[str]) -> int:
    options, command = common.split_at_dashes(argv)
    parser = _parser()
    try:
        args = parser.parse_args(options)
    except SystemExit as exc:
        return common.exit_status(exc)
    if (bad := common.one_target(parser, args.shell, command)) is not None:
        return bad
    if args.shell is not None:
        command = ["bash", "-lc", args.shell]

    bash_reading.enable()  # a process that runs commands: bash's own grammar checks each split
    cwd = common.workdir(PROG, args.cwd)
    if isinstance(cwd, int):
        return cwd
    approval = common.approval_policy(PROG, args.approval_policy)
    if isinstance(approval, int):
        return approval
    if args.approve_for_me and approval is None:  # Codex's --approve-for-me: on-request
        # deferred: as the rest of the chain, once the arguments are parsed
        from shellgate.approval.context import ON_REQUEST

        approval = ON_REQUEST

    running = common.running_session(PROG, args, cwd, approval, status=EXIT_RULES_ERROR)
    if isinstance(running, int):
        return running
    codex_home, policy, session = running

    # deferred: once the arguments are parsed (`--help` and usage errors answer without it),
    # Codex's hooks and the reviewer (~5 ms) too
    from shellgate.answer.stage import answer_stage, configured_review, reviewer_for
    from shellgate.answer.transcripts import typed_command
    from shellgate.approval.context import ExecContext

    # deferred: the orchestrator (~40 ms) once the arguments are parsed
    from shellgate.exec.orchestrator import Orchestrator
    from shellgate.exec.results import ExecRequest
    from shellgate.exec.sandbox import NetworkAccess
    from shellgate.exec.terminal import TerminalApprover
    from shellgate.rules.errors import RulesError

    def emit(event: object) -> None:
        sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    person = TerminalApprover()
    script = command[2] if args.shell is not None else shlex.join(command)
    try:
        review = configured_review(cwd, codex_home, approve_for_me=args.approve_for_me)
        if review.warning:
            print(f"{PROG}: warning: {review.warning}", file=sys.stderr)
        reviewer = reviewer_for(review, session.approval_policy,
                                transcript=lambda: typed_command(script),
                                sandbox=session.sandbox.value)  # fmt: skip
        stage = answer_stage(person, codex_home=codex_home, approval=session.approval_policy,
                             reviewer=reviewer, cwd=cwd, project=args.project)  # fmt: skip
    except RulesError as exc:
        print(f"{PROG}: {exc}; nothing ran", file=sys.stderr)
        return EXIT_RULES_ERROR
    orchestrator = Orchestrator(
        policy, person,
        ExecContext(approval_policy=session.approval_policy, sandbox=session.sandbox,
                    fs_policy_has_denied_reads=bool(session.deny_read)),
        codex_home=str(codex_home), writable_roots=tuple(args.writable_root),
        network=NetworkAccess(args.network) if args.network else None,
        approval_timeout=args.approval_timeout, command_timeout=args.timeout,
        on_event=emit if args.json_events else None, answerers=stage,
    )  # fmt: skip
    # The command's stdin is /dev/null, as in Codex; ours is for the answers.
    result = asyncio.run(until_signalled(orchestrator.run(ExecRequest(tuple(command), cwd))))
    if isinstance(result, signal.Signals):
        print(f"\nshellgate run: {'interrupted' if result is signal.SIGINT else result.name}; "
              "the command was stopped", file=sys.stderr)  # fmt: skip
        return 128 + result
    return _report(result, args.json_events)


def _report(result: object, json_events: bool) -> int:
    # deferred: as in main, once the arguments are parsed
    from shellgate.exec.denial import Outcome
    from shellgate.exec.results import ExecResult, Status

    assert isinstance(result, ExecResult)
    timed_out = bool(result.attempts) and result.attempts[-1].outcome is Outcome.TIMED_OUT
    code = {
        Status.FORBIDDEN: EXIT_FORBIDDEN,
        Status.DENIED: EXIT_DENIED,
        Status.ABORTED: EXIT_ABORTED,
        Status.SANDBOX_ERROR: EXIT_SANDBOX_ERROR,
    }.get(result.status)
    if code is None:
        code = EXIT_TIMEOUT if timed_out else (result.exit_code or 0)
    if json_events:
        sys.stdout.write(json.dumps({
            "event": "result", "status": result.status.value, "exit_code": result.exit_code,
            "exit_status": code, "stdout": result.stdout, "stderr": result.stderr,
            "reason": result.reason, "notes": list(result.notes),
            "answered_by": result.answered_by.value, "replaced_output": result.replaced_output,
            "attempts": [{"sandboxed": a.sandboxed, "outcome": a.outcome.value,
                          "exit_code": a.exit_code, "permission": a.permission}
                         for a in result.attempts],
        }, ensure_ascii=False) + "\n")  # fmt: skip
        return code
    if result.replaced_output is not None:  # a PostToolUse hook's text, as the model reads it
        sys.stdout.write(result.replaced_output)
    else:
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
    sys.stdout.flush()
    for note in result.notes:
        print(f"shellgate: {note}", file=sys.stderr)
    if result.status is not Status.COMPLETED:
        print(f"shellgate: {result.status.value}: {result.reason}", file=sys.stderr)
    elif timed_out:
        print("shellgate: the command timed out and was stopped", file=sys.stderr)
    elif result.attempts and result.attempts[-1].outcome.is_denial:
        print(f"shellgate: the sandbox denied it: {result.reason}", file=sys.stderr)
    return code
