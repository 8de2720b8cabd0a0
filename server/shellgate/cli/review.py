"""`shellgate review -- CMD`: ask Codex's auto-reviewer about one command now, as a question
from `run --approve-for-me` would ask it, and print its assessment (outcome, risk,
authorization, rationale). Nothing runs. For trying a policy text (`--policy FILE`) before
putting it in `[auto_review].policy`.

Exit status: 0 the reviewer allows it, 1 it denies it, 3 the review failed or timed out
(Codex refuses the command then), 2 usage or configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
from pathlib import Path

from shellgate.cli import common

PROG = "shellgate review"
USAGE = ("shellgate review [--cwd DIR] [--codex-home DIR] [--escalated] [--justification TEXT] "
         "[--policy FILE] [--json] (-- CMD... | --shell SCRIPT)")  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, usage=USAGE, formatter_class=common.HelpFormatter,
        description="Ask Codex's auto-reviewer (the model of Codex's config.toml) about one "
        "command and print its assessment; nothing runs.",
        epilog="exit status: 0 allow, 1 deny, 3 the review failed, 2 usage",
    )  # fmt: skip
    p.add_argument("--cwd", metavar="DIR", help="where it would run (default: here)")
    p.add_argument("--codex-home", metavar="DIR", help="Codex's home (default: $CODEX_HOME)")
    p.add_argument("--escalated", action="store_true",
                   help="as a call asking to leave the sandbox (require_escalated)")
    p.add_argument("--justification", metavar="TEXT", help="the agent's reason, as it gave it")
    p.add_argument("--policy", metavar="FILE",
                   help="a Security Policy text to try instead of [auto_review].policy")
    p.add_argument("--json", action="store_true", help="print the assessment as JSON")
    p.add_argument("--shell", metavar="SCRIPT", help="review `bash -lc SCRIPT`")
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
    cwd = common.workdir(PROG, args.cwd)
    if isinstance(cwd, int):
        return cwd
    script = args.shell if args.shell is not None else shlex.join(command)
    # deferred: the reviewer and its client (~60 ms), once the arguments are parsed
    from shellgate.answer.review_request import policy_text
    from shellgate.answer.reviewer import Reviewer, read_only_look
    from shellgate.answer.stage import configured_review
    from shellgate.answer.transcripts import typed_command
    from shellgate.approval.question import ApprovalRequest, RequestKind
    from shellgate.codexconfig import codex_home
    from shellgate.rules.errors import RulesError

    home = Path(args.codex_home) if args.codex_home else codex_home()
    try:
        review = configured_review(cwd, home, approve_for_me=True)
    except RulesError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    if review.warning:
        print(f"{PROG}: warning: {review.warning}", file=sys.stderr)
    if review.provider is None:
        print(f"{PROG}: no model to ask: set `model` (and `model_provider`) in Codex's "
              "config.toml", file=sys.stderr)  # fmt: skip
        return 2
    user_policy = review.user_policy
    if args.policy:
        try:
            user_policy = Path(args.policy).read_text("utf-8").rstrip("\n")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{PROG}: --policy {args.policy}: {exc}", file=sys.stderr)
            return 2
    reviewer = Reviewer(review.provider,
                        policy_text(user_policy, review.admin_policy, review.admin_extra),
                        lambda: typed_command(script), review.timeout_ms,
                        env=dict(os.environ), read_only=read_only_look)  # fmt: skip
    escalated = "require_escalated" if args.escalated else "use_default"
    request = ApprovalRequest("review", RequestKind.EXEC, ("/bin/bash", "-lc", script), cwd,
                              args.justification, (), justification=args.justification,
                              sandbox_permissions=escalated)  # fmt: skip
    answered = asyncio.run(reviewer.answer(request))
    _, verdict, _ = reviewer.verdicts[-1]
    out = {"command": script, "model": review.provider.model, "requests": reviewer.requests,
           "outcome": verdict.outcome if verdict else None,
           "risk_level": verdict.risk_level if verdict else None,
           "user_authorization": verdict.user_authorization if verdict else None,
           "rationale": verdict.rationale if verdict else None,
           "told": answered.said if answered else None}  # fmt: skip
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    elif verdict is None:
        print(f"review failed ({review.provider.model}):\n{out['told']}")
    else:
        print(f"{verdict.outcome} (risk: {verdict.risk_level or 'not given'}, authorization: "
              f"{verdict.user_authorization or 'not given'}, model: {review.provider.model})")
        if verdict.rationale:
            print(verdict.rationale)
    if verdict is None:
        return 3
    return 0 if verdict.outcome == "allow" else 1
