"""`shellgate explain`: the whole decision chain for one command, for a person or as JSON.

Exit codes: 0 explained, 1 bad rules (a broken file never turns into an empty policy),
2 usage.
"""

from __future__ import annotations

import argparse
import json
import marshal
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shellgate.rules.layers import RulesLayer
    from shellgate.rules.policy import Policy

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
    p.add_argument(
        "--justification", metavar="TEXT", help="the model's reason for an escalated call"
    )
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
        args, extra = parser.parse_known_args(options)
    except SystemExit as exc:  # argparse already printed usage and the error
        return 0 if exc.code == 0 else 2
    if extra:
        parser.print_usage(sys.stderr)
        print(
            f"shellgate explain: error: unexpected {' '.join(extra)!r}: "
            "put the command after `--` (e.g. `shellgate explain -- git push`)",
            file=sys.stderr,
        )
        return 2
    if (args.shell is None) == (not command):
        parser.print_usage(sys.stderr)
        print(
            "shellgate explain: error: give a command after `--` or a script with --shell "
            "(exactly one)",
            file=sys.stderr,
        )
        return 2

    for flag, folder in (("--codex-home", args.codex_home), ("--project", args.project)):
        if folder is not None and not os.path.isdir(folder):
            print(f"shellgate explain: error: {flag}: no such directory: {folder}", file=sys.stderr)
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
    from shellgate.rules.layers import discover_layers

    try:
        layers = discover_layers(
            codex_home=Path(os.path.abspath(args.codex_home)) if args.codex_home else None,
            project=Path(os.path.abspath(args.project)) if args.project else None,
            extra_rules=args.rules,
        )
        policy = _load_cached(layers)
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


# Loading rules with every span costs seconds for a 10 000-rule file; a loaded policy is kept,
# keyed by everything it depends on (file names and bytes, cwd, HOME, ShellGate's rules code),
# as plain marshal data (no pickle: nothing in the cache can run code). Failures are not kept.
_CACHE_VERSION = 1


def _load_cached(layers: Sequence[RulesLayer]) -> Policy:
    from shellgate.rules.layers import load_layers

    key = _cache_key(layers)
    if key is not None:
        try:
            with open(key, "rb") as fh:
                return _thaw(marshal.load(fh))
        except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError):
            pass
    policy = load_layers(layers)
    if key is not None:
        try:
            os.makedirs(os.path.dirname(key), exist_ok=True)
            tmp = f"{key}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                marshal.dump(_freeze(policy), fh)
            os.replace(tmp, key)
        except (OSError, ValueError):
            pass
    return policy


def _cache_key(layers: Sequence[RulesLayer]) -> str | None:
    if os.environ.get("SHELLGATE_NO_CACHE") or not any(layer.files for layer in layers):
        return None
    from hashlib import blake2b

    from shellgate import rules

    h = blake2b(digest_size=32)
    try:
        code_dir = os.path.dirname(rules.__file__)
        stamp = [
            f"{n}:{os.stat(os.path.join(code_dir, n)).st_mtime_ns}"
            for n in sorted(os.listdir(code_dir))
            if n.endswith(".py")
        ]
        h.update(repr([_CACHE_VERSION, os.getcwd(), os.environ.get("HOME", ""), stamp]).encode())
        for layer in layers:
            for path in layer.files:
                with open(path, "rb") as fh:
                    data = fh.read()
                h.update(b"\0%s\0%s\0%d\0" % (layer.name.encode(), os.fsencode(path), len(data)))
                h.update(data)
    except OSError:
        return None  # the loader will report it properly
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shellgate", "explain", h.hexdigest())


def _span(span: Any) -> Any:
    if span is None:
        return None
    return (span.path, span.line, span.column, span.end_line, span.end_column)


def _freeze(policy: Policy) -> Any:
    rules = [
        (r.first, r.rest, r.decision.value, r.justification, _span(r.span), r.layer)
        for r in policy.rules
    ]
    network = [
        (n.host, n.protocol, n.decision.value, n.justification, _span(n.span))
        for n in policy.network_rules
    ]
    return (_CACHE_VERSION, rules, network, dict(policy.host_executables))


def _thaw(data: Any) -> Policy:
    from shellgate.rules.decision import Decision
    from shellgate.rules.policy import Policy
    from shellgate.rules.rule import NetworkRule, PrefixRule
    from shellgate.rules.source import SourceSpan

    version, rules, network, hosts = data
    if version != _CACHE_VERSION:
        raise ValueError("stale cache")

    def span(raw: Any) -> SourceSpan | None:
        return None if raw is None else SourceSpan(*raw)

    return Policy(
        (PrefixRule(f, rest, Decision(d), j, span(s), layer) for f, rest, d, j, s, layer in rules),
        (NetworkRule(h, p, Decision(d), j, span(s)) for h, p, d, j, s in network),
        hosts,
    )
