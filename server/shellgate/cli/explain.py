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

USAGE = (
    "shellgate explain [--rules FILE ...] [--codex-home DIR] [--project DIR] "
    "[--approval-policy POLICY] [--sandbox read-only|workspace-write|danger-full-access] "
    "[--sandbox-permissions use_default|require_escalated] [--justification TEXT] [--json] "
    "(-- CMD... | --shell SCRIPT)"
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="shellgate explain",
        usage=USAGE,
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
        help="a project you trust: its .codex/rules/*.rules load too (untrusted projects: omit)",
    )  # fmt: skip
    p.add_argument(
        "--approval-policy", default="on-request", metavar="POLICY",
        help='untrusted, on-request (default), on-failure, never, or granular JSON such as '
        '\'{"granular": {"sandbox_approval": false, "rules": true, "mcp_elicitations": true}}\'',
    )  # fmt: skip
    p.add_argument(
        "--sandbox", default="workspace-write",
        choices=["read-only", "workspace-write", "danger-full-access"],
        help="the sandbox mode (default: workspace-write)",
    )  # fmt: skip
    p.add_argument(
        "--sandbox-permissions", default="use_default",
        choices=["use_default", "require_escalated"],
        help="what the call asks of the sandbox (default: use_default)",
    )  # fmt: skip
    p.add_argument("--justification", help="the model's reason for an escalated call")
    p.add_argument("--json", action="store_true", help="print JSON (rules-schema/explain)")
    p.add_argument("--shell", metavar="SCRIPT", help="explain `bash -lc SCRIPT`")
    return p


def main(argv: list[str]) -> int:
    if "--" in argv:
        cut = argv.index("--")
        options, command = argv[:cut], argv[cut + 1 :]
    else:
        options, command = argv, []
    parser = _parser()
    try:
        args = parser.parse_args(options)
    except SystemExit as exc:  # argparse already printed usage and the error
        return 0 if exc.code == 0 else 2
    if (args.shell is None) == (not command):
        parser.print_usage(sys.stderr)
        print(
            "shellgate explain: error: give a command after `--` or a script with --shell "
            "(exactly one)",
            file=sys.stderr,
        )
        return 2

    from shellgate.approval.context import (
        ApprovalPolicy,
        ExecContext,
        SandboxMode,
        SandboxPermissions,
    )

    try:
        approval = ApprovalPolicy.parse(args.approval_policy)
    except ValueError as exc:
        print(f"shellgate explain: error: --approval-policy: {exc}", file=sys.stderr)
        return 2
    context = ExecContext(
        approval_policy=approval,
        sandbox=SandboxMode(args.sandbox),
        sandbox_permissions=SandboxPermissions(args.sandbox_permissions),
        justification=args.justification,
    )

    from shellgate.rules.errors import RulesError
    from shellgate.rules.layers import discover_layers, load_layers

    try:
        layers = discover_layers(
            codex_home=Path(args.codex_home) if args.codex_home else None,
            project=Path(args.project) if args.project else None,
            extra_rules=args.rules,
        )
        policy = load_layers(layers)
    except RulesError as exc:
        print(f"shellgate explain: error: {exc}", file=sys.stderr)
        print(
            "no decision: fix the rules (Codex would drop every rules file and decide by its "
            "heuristics alone)",
            file=sys.stderr,
        )
        return 1

    from shellgate.explain import explain, render_text, to_json

    files = tuple((f, layer.name) for layer in layers for f in layer.files)
    target: list[str] | str = args.shell if args.shell is not None else command
    explanation = explain(target, policy=policy, context=context, cwd=os.getcwd(),
                          rules_files=files)  # fmt: skip
    if args.json:
        sys.stdout.write(json.dumps(to_json(explanation), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(explanation))
    return 0
