"""`shellgate explain`: the whole decision chain for one command, for a person or as JSON.

Exit codes: 0 explained, 1 bad rules (a broken file never turns into an empty policy),
2 usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from shellgate.cli import common
from shellgate.shell import bash_reading

PROG = "shellgate explain"
USAGE = (
    "shellgate explain [--rules FILE ...] [--codex-home DIR] [--project DIR] [--cwd DIR] "
    "[--approval-policy POLICY] [--sandbox read-only|workspace-write|danger-full-access] "
    "[--sandbox-permissions use_default|require_escalated] [--justification TEXT] [--json] "
    "[--bash-cross-check] [--run-hooks] [--approve-for-me] "
    "(-- CMD... | --shell SCRIPT)"
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=USAGE,
        formatter_class=common.HelpFormatter,
        description="Explain what Codex 0.169.0 would do with a command: the commands its "
        "rules see, the rules and heuristics that decide each, the approval requirement and "
        "the sandbox of the first run.",
    )
    p.add_argument(
        "--rules", action="extend", nargs="+", default=[], metavar="FILE",
        help="extra rules files, loaded after the user and project layers",
    )  # fmt: skip
    p.add_argument(
        "--codex-home", metavar="DIR",
        help="Codex's home (default: $CODEX_HOME, else ~/.codex): its rules/*.rules load first",
    )  # fmt: skip
    p.add_argument(
        "--project", metavar="DIR",
        help="a project you trust, whatever Codex's config.toml says: its .codex/rules/*.rules "
        "load (default: the project of --cwd, if Codex's config.toml trusts it)",
    )  # fmt: skip
    p.add_argument(
        "--cwd", metavar="DIR",
        help="the session's working directory (default: the current one): its project's "
        "trust and rules, as Codex resolves them",
    )  # fmt: skip
    p.add_argument(
        "--approval-policy", metavar="POLICY",
        help='untrusted, on-request, on-failure, never, or granular JSON such as '
        '\'{"granular": {"sandbox_approval": false, "rules": true, "mcp_elicitations": true}}\' '
        "(default: Codex's config files, else on-request); the admin's requirements may clamp it",
    )  # fmt: skip
    p.add_argument(
        "--sandbox",
        choices=["read-only", "workspace-write", "danger-full-access"],
        help="the sandbox mode (default: Codex's config files, else workspace-write); the "
        "admin's requirements may clamp it",
    )  # fmt: skip
    p.add_argument(
        "--sandbox-permissions", default="use_default",
        choices=["use_default", "require_escalated"],
        help="what the call asks of the sandbox (default: use_default)",
    )  # fmt: skip
    p.add_argument(
        "--justification", metavar="TEXT", help="the model's reason for an escalated call"
    )
    p.add_argument("--json", action="store_true", help="print JSON (rules-schema/explain)")
    p.add_argument(
        "--bash-cross-check", action="store_true",
        help="also check the split against bash's own grammar (bashlex; about 200 ms more)",
    )  # fmt: skip
    p.add_argument(
        "--run-hooks", action="store_true",
        help="run the Codex PreToolUse and PermissionRequest hooks that would run for the "
        "command (they are real programs) and show their answer",
    )  # fmt: skip
    p.add_argument(
        "--approve-for-me", action="store_true",
        help="as `run --approve-for-me`: questions go to Codex's auto-reviewer",
    )  # fmt: skip
    p.add_argument("--shell", metavar="SCRIPT", help="explain `bash -lc SCRIPT`")
    return p


def main(argv: list[str]) -> int:
    options, command = common.split_at_dashes(argv)
    parser = _parser()
    try:
        args, extra = parser.parse_known_args(options)
    except SystemExit as exc:  # argparse already printed usage and the error
        return common.exit_status(exc)
    if extra:
        parser.print_usage(sys.stderr)
        print(
            f"{PROG}: error: unexpected {' '.join(extra)!r}: "
            "put the command after `--` (e.g. `shellgate explain -- git push`)",
            file=sys.stderr,
        )
        return 2
    if (bad := common.one_target(parser, args.shell, command)) is not None:
        return bad
    if (bad := common.rules_folders(PROG, args.codex_home, args.project)) is not None:
        return bad
    if args.bash_cross_check:
        bash_reading.enable()
    approval = common.approval_policy(PROG, args.approval_policy)
    if isinstance(approval, int):
        return approval
    if args.approve_for_me and approval is None:  # Codex's --approve-for-me: on-request
        # deferred: once the arguments are parsed
        from shellgate.approval.context import ON_REQUEST

        approval = ON_REQUEST
    cwd = common.workdir(PROG, args.cwd)
    if isinstance(cwd, int):
        return cwd

    loaded = common.load_config(
        PROG,
        codex_home=Path(os.path.abspath(args.codex_home)) if args.codex_home else None,
        project=Path(os.path.abspath(args.project)) if args.project else None,
        cwd=cwd,
        extra_rules=args.rules,
        consequence="no decision: fix the rules (Codex would drop every rules file and decide "
        "by its heuristics alone)",
        status=1,
    )
    if isinstance(loaded, int):
        return loaded
    config, policy = loaded
    session = common.session(PROG, config, approval, args.sandbox, status=1)
    if isinstance(session, int):
        return session
    layers, trust = config.layers, config.trust

    # deferred: once the arguments are parsed (`--help` and usage errors answer without it)
    from shellgate.approval.context import ExecContext, SandboxPermissions
    from shellgate.rules.errors import RulesError

    context = ExecContext(
        approval_policy=session.approval_policy,
        sandbox=session.sandbox,
        sandbox_permissions=SandboxPermissions(args.sandbox_permissions),
        justification=args.justification,
        fs_policy_has_denied_reads=bool(session.deny_read),
    )

    # deferred: the explain chain (~40-55 ms) and who answers (Codex's hooks, the reviewer)
    # once the arguments are parsed
    from shellgate.answer.explained import explain_answerers
    from shellgate.explain import explain, render_text, to_json

    files = tuple((f, layer.name) for layer in layers for f in layer.files)
    target: list[str] | str = args.shell if args.shell is not None else command

    def chain(target: list[str] | str) -> Any:
        return explain(target, policy=policy, context=context, cwd=cwd, rules_files=files,
                       project=trust, session=session)  # fmt: skip

    try:
        explanation, who = explain_answerers(chain, target, config, context, cwd,
                                             run=args.run_hooks,
                                             approve_for_me=args.approve_for_me)  # fmt: skip
    except RulesError as err:  # a config.toml or hooks.json Codex refuses
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    if args.json:
        data = to_json(explanation)
        data["answerers"] = who.to_json()
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(explanation))
        sys.stdout.write(who.render())
    return 0
