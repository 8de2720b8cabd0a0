"""`shellgate mcp`: ShellGate as an MCP server on stdio, for any MCP client;
`shellgate mcp install codex|claude-code|gemini`: register it with a client.

Exit status: 0, 2 usage, 1 a configuration file that could not be edited safely.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from shellgate.cli import common

PROG = "shellgate mcp"
SUBCOMMANDS = ("install",)


def _serve_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Serve MCP on stdio: a `shell` tool whose commands pass the rules Codex "
        "would load, the approval policy, the editor's dialog (or MCP elicitation) and the "
        "sandbox; an `approve` tool for Claude Code's --permission-prompt-tool. "
        "`shellgate mcp install --help` registers it with a client.",
    )  # fmt: skip
    p.add_argument("--workspace", metavar="DIR",
                   help="the workspace commands run in (default: the current directory)")
    p.add_argument("--codex-home", metavar="DIR",
                   help="Codex's home, whose rules load (default: $CODEX_HOME, else ~/.codex)")
    p.add_argument("--approval-policy", default="on-request", metavar="POLICY",
                   help="untrusted, on-request (default), on-failure, never, or granular JSON")
    p.add_argument("--sandbox", default="workspace-write",
                   choices=["read-only", "workspace-write", "danger-full-access"],
                   help="the sandbox mode (default: workspace-write)")
    p.add_argument("--rules", action="extend", nargs="+", default=[], metavar="FILE",
                   help="extra rules files, loaded last")
    p.add_argument("--approval-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="an unanswered question counts as denied after this (default 300)")
    p.add_argument("--structured", action="store_true",
                   help="add structuredContent to `shell` results (Codex and Claude Code then "
                   "show the model that JSON instead of the text)")
    return p  # fmt: skip


def _install_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} install",
        description="Register `shellgate mcp` with an MCP client, plus the setting that stops "
        "the client asking again for what ShellGate decides. Idempotent; a changed file is "
        "backed up first.",
    )  # fmt: skip
    p.add_argument("client", choices=["codex", "claude-code", "gemini"])
    p.add_argument("--scope", choices=["user", "project"], default="user",
                   help="user (default): your own config; project: the files in --project")
    p.add_argument("--project", metavar="DIR", help="the project (default: the current directory)")
    p.add_argument("--codex-home", metavar="DIR",
                   help="Codex's home (default: $CODEX_HOME, else ~/.codex)")
    p.add_argument("--uninstall", action="store_true", help="remove what install wrote")
    return p  # fmt: skip


def main(argv: list[str]) -> int:
    if argv[:1] == ["install"]:
        return _install(argv[1:])
    parser = _serve_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return common.exit_status(exc)
    workspace = common.workdir(PROG, args.workspace)
    if isinstance(workspace, int):
        return workspace
    approval = common.approval_policy(PROG, args.approval_policy)
    if isinstance(approval, int):
        return approval
    assert approval is not None  # the flag has a default
    # Before the SDK's import (over a second): from here the wire is read, and answered from
    # the answer cache where the SDK's answer is known (front.py).
    from shellgate.mcp.front import Front

    front = Front.start({"structured": args.structured})
    # deferred past Front.start: the MCP SDK (~1 s) and the session import while the
    # front answers the wire
    from shellgate.approval.context import SandboxMode
    from shellgate.codexconfig.layers import default_codex_home
    from shellgate.mcp.server import serve
    from shellgate.mcp.shell import McpSession

    codex_home = Path(args.codex_home) if args.codex_home else default_codex_home()
    serve(McpSession(workspace, codex_home, approval, SandboxMode(args.sandbox),
                     tuple(args.rules), args.approval_timeout,
                     structured=args.structured), front)  # fmt: skip
    return 0


def _install(argv: list[str]) -> int:
    parser = _install_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return common.exit_status(exc)
    # deferred: `mcp install` only, once its arguments are parsed
    from shellgate.codexconfig.layers import default_codex_home
    from shellgate.mcp.install import InstallError, install

    explicit = args.codex_home or os.environ.get("CODEX_HOME") or None
    codex_home = Path(explicit) if explicit else default_codex_home()
    try:
        changes = install(
            args.client, scope=args.scope, project=Path(args.project or os.getcwd()).resolve(),
            home=Path.home(), codex_home=codex_home, uninstall=args.uninstall,
            codex_home_arg=Path(explicit) if explicit else None)  # fmt: skip
    except InstallError as exc:
        print(f"{PROG} install: error: {exc}", file=sys.stderr)
        return 1
    verb = "uninstalled from" if args.uninstall else "installed for"
    print(f"shellgate mcp {verb} {args.client} ({args.scope} scope):")
    for c in changes:
        state = "updated" if c.changed else "already so"
        line = f"  {c.path}: {c.what} ({state})"
        if c.backup is not None:
            line += f"; backup: {c.backup}"
        print(line)
    return 0
