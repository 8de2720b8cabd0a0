"""`shellgate hook install|uninstall AGENT`: the options checked, then the scope's writer
(`install` for a user or a project, `install_managed` for the admin's files), and what the
chosen sandbox means for the commands no rule allows."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from shellgate.approval.context import ApprovalPolicy
from shellgate.codexconfig.layers import default_codex_home
from shellgate.config_edit import ConfigError
from shellgate.hooks.confine import sandbox_runs
from shellgate.hooks.copilot_install import TRUST_NOTE
from shellgate.hooks.install import (
    PROG,
    claude_settings,
    gemini_home,
    install_claude,
    install_codex,
    install_copilot,
    install_gemini,
)
from shellgate.hooks.install_managed import install_managed
from shellgate.hooks.outcome import DEFAULT_FALLBACK


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Merge ShellGate's hook into the agent's "
        "own configuration (idempotent; a backup of each changed file).",
    )
    p.add_argument("agent", choices=["codex", "claude-code", "gemini", "copilot"])
    p.add_argument(
        "--scope",
        choices=["user", "project", "managed"],
        default="user",
        help="the user's configuration (default), the project's, or the admin's (managed: "
        "/etc/codex/requirements.toml, /etc/claude-code/managed-settings.json, "
        "/etc/gemini-cli/settings.json; run as root)",
    )
    p.add_argument("--project", metavar="DIR", help="the project (default: the current folder)")
    p.add_argument("--uninstall", action="store_true", help="remove ShellGate's hook")
    p.add_argument("--codex-home", metavar="DIR", help="default: $CODEX_HOME, else ~/.codex")
    p.add_argument(
        "--sandbox",
        choices=["read-only", "workspace-write", "danger-full-access"],
        help="Claude Code, Gemini, Copilot: run commands no rule allows in ShellGate's sandbox "
        "(default workspace-write, Codex's own); danger-full-access: no sandbox, so those "
        "commands are asked",
    )
    p.add_argument("--network", choices=["off", "full"], help="the sandbox's network")
    p.add_argument(
        "--fallback",
        choices=["ask", "deny"],
        help="no editor reachable: the agent's own prompt, or blocked",
    )
    p.add_argument("--approval-policy", metavar="POLICY",
                   help="default: Codex's config files, then on-request")  # fmt: skip
    p.add_argument(
        "--approve-for-me", action="store_true",
        help="Claude Code, Gemini, Copilot: a question goes to Codex's auto-reviewer (the model "
        "of Codex's config.toml) instead of a person, with on-request approvals unless "
        "--approval-policy says otherwise; one model call per question it answers",
    )
    p.add_argument(
        "--deadline",
        metavar="SECONDS",
        type=float,
        help="Copilot: the hook answers no after this long (default 315; the hosts' timeout "
        "is set 15 s above it)",
    )
    return p


def install_main(args: list[str], env: Mapping[str, str] = os.environ) -> int:
    try:
        opts = _parser().parse_args(args)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if opts.agent != "codex" and opts.sandbox is None:
        opts.sandbox = DEFAULT_SANDBOX  # never looser than the agent alone (issue 18)
    flags: list[str] = []
    for name in ("approval_policy", "sandbox", "network", "fallback", "deadline"):
        value = getattr(opts, name)
        if value is not None:
            flags += ["--" + name.replace("_", "-"), f"{value:g}" if name == "deadline" else value]
    if opts.approve_for_me:
        if opts.agent == "codex":
            print(f"{PROG}: error: --approve-for-me is for Claude Code, Gemini and Copilot: "
                  "Codex reviews its own questions (approvals_reviewer in its config.toml)",
                  file=sys.stderr)  # fmt: skip
            return 2
        flags.append("--approve-for-me")
    if opts.deadline is not None and (opts.agent != "copilot" or not opts.deadline > 0):
        print(f"{PROG}: error: --deadline is for copilot, above 0 seconds", file=sys.stderr)
        return 2
    if opts.approval_policy is not None:
        try:  # a hook that cannot parse its own options blocks every command: refuse it now
            ApprovalPolicy.parse(opts.approval_policy)
        except ValueError as exc:
            print(f"{PROG}: error: --approval-policy: {exc}", file=sys.stderr)
            return 2
    if opts.agent == "copilot" and opts.scope not in ("user", "project"):
        print(f"{PROG}: error: copilot: --scope {opts.scope} is not supported yet (user: "
              "$COPILOT_HOME/hooks, project: .github/hooks)", file=sys.stderr)
        return 2
    if opts.agent == "codex" and (opts.sandbox or opts.network):
        print(
            f"{PROG}: error: --sandbox/--network are for Claude Code and Gemini: Codex "
            "sandboxes its commands itself",
            file=sys.stderr,
        )
        return 2
    root = Path(opts.project or os.getcwd()).absolute() if opts.scope == "project" else None
    try:
        if opts.scope == "managed":
            changes = install_managed(opts.agent, flags, opts.uninstall, env)
        elif opts.agent == "codex":
            home = Path(opts.codex_home) if opts.codex_home else default_codex_home(env)
            changes = install_codex(home, root, flags, opts.uninstall)
        elif opts.agent == "claude-code":
            changes = install_claude(claude_settings(root, env), flags, opts.uninstall)
        elif opts.agent == "copilot":
            changes = install_copilot(root, env, flags, opts.uninstall)
        else:
            changes = install_gemini(gemini_home(env), root, flags, opts.uninstall)
    except (ConfigError, OSError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    done = "uninstalled" if opts.uninstall else "installed"
    if not changes:
        print(f"shellgate hook {opts.agent}: already {done}; nothing changed")
    for c in changes:
        print(f"{c.path}: {c.what}" + (f" (backup: {c.backup})" if c.backup else ""))
    if opts.agent == "copilot" and root is not None and not opts.uninstall:
        print(TRUST_NOTE)
    if changes and not opts.uninstall:
        print(
            f"shellgate hook {opts.agent}: {done}; check it with `shellgate hook doctor "
            f"{opts.agent}`"
        )
    if opts.sandbox and not opts.uninstall:
        print(sandbox_meaning(opts.agent, opts.sandbox, opts.fallback, opts.network))
    return 0



DEFAULT_SANDBOX = "workspace-write"


def sandbox_meaning(agent: str, sandbox: str, fallback: str | None, network: str | None) -> str:
    """What --sandbox means for the commands no rule of the user's allows, said at install."""
    name = {"claude-code": "Claude Code", "gemini": "Gemini CLI", "copilot": "Copilot"}[agent]
    deny = (fallback or DEFAULT_FALLBACK[agent]) == "deny"
    own = "blocked, saying why" if deny else f"{name}'s prompt"
    asked = f"asked (in the editor, else {own})"
    if sandbox == "danger-full-access":
        return (
            "sandbox: danger-full-access: no sandbox. A command your rules allow runs with your "
            "full permissions (files and network); one no rule allows and that is not read-only "
            f"is {asked}, as {name} alone would ask"
        )
    where = "the workspace and /tmp" if sandbox == "workspace-write" else "nothing"
    text = (
        f"sandbox: {sandbox}: a command no rule allows runs in ShellGate's sandbox (writable: "
        f"{where}; .git read-only; network {network or 'off'}); `--sandbox danger-full-access` "
        "turns it off"
    )
    runs, why = sandbox_runs()
    if not runs:
        text += (
            f"\nwarning: the sandbox cannot run here ({why}): until it can, a command no rule "
            f"allows and that is not read-only is {asked}"
        )
    return text
