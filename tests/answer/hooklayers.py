"""Where Codex finds hooks beyond the user's (docs/answerers.md "observed"): the system folder's
hooks.json and config.toml, a trusted project's `.codex`, `managed_dir`, `async` hooks. Writes
them as Codex reads them, and runs one command through ShellGate's stage (real hook
processes, `codex_hook.py`) the way `shellgate run` builds it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hookenv import Setup

from shellgate.answer.stage import answer_stage
from shellgate.approval.context import ApprovalPolicy, ExecContext, SandboxMode
from shellgate.approval.question import AutomaticApprover
from shellgate.approval.review import ReviewDecision
from shellgate.codexconfig.hook_trust import state_key, trust_hash
from shellgate.exec.orchestrator import ExecRequest, ExecResult, Orchestrator
from shellgate.rules.policy import Policy


def handler(s: Setup, name: str, *, is_async: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "command", "command": s.command(name)}
    if is_async:
        out["async"] = True
    return out


def hooks_json(folder: Path, s: Setup, names: list[str], *, is_async: bool = False) -> Path:
    """`folder/hooks.json`: one PreToolUse group (matcher Bash) per name."""
    folder.mkdir(parents=True, exist_ok=True)
    groups = [{"matcher": "Bash", "hooks": [handler(s, n, is_async=is_async)]} for n in names]
    path = folder / "hooks.json"
    path.write_text(json.dumps({"hooks": {"PreToolUse": groups}}))
    return path


def config_hooks(path: Path, s: Setup, names: list[str], extra: str = "") -> Path:
    """`[[hooks.PreToolUse]]` groups (matcher Bash) in a config.toml, after `extra`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [extra] if extra else []
    for n in names:
        lines += ["[[hooks.PreToolUse]]", 'matcher = "Bash"', "[[hooks.PreToolUse.hooks]]",
                  'type = "command"', f"command = {json.dumps(s.command(n))}"]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def trust(s: Setup, declaring: Path, names: list[str], *, is_async: bool = False,
          extra: str = "") -> None:  # fmt: skip
    """Trust each group of `declaring` in the user's config.toml (appended), as Codex's
    `/hooks` does."""
    config = s.home / "config.toml"
    lines = [config.read_text()] if config.exists() else []
    for g, n in enumerate(names):
        value = trust_hash("PreToolUse", "Bash", s.command(n), None, is_async)
        lines += [f"[hooks.state.{json.dumps(state_key(declaring, 'PreToolUse', g))}]",
                  f"trusted_hash = {json.dumps(value)}"]  # fmt: skip
        if extra:
            lines.append(extra)
    config.write_text("\n".join(lines) + "\n")


def trust_project(s: Setup) -> None:
    config = s.home / "config.toml"
    before = config.read_text() if config.exists() else ""
    config.write_text(f'[projects.{json.dumps(str(s.ws))}]\ntrust_level = "trusted"\n' + before)


def deny(reason: str) -> dict[str, Any]:
    return {"kind": "json", "stdout": {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": reason}}}  # fmt: skip


def run(s: Setup, command: str = "pwd") -> ExecResult:
    """`command` through ShellGate's stage as `shellgate run` builds it (approval never,
    no sandbox: what Codex's exec ran in the live set-ups)."""
    person = AutomaticApprover(default=ReviewDecision.DENIED)
    approval = ApprovalPolicy.parse("never")
    stage = answer_stage(person, codex_home=s.home, approval=approval, system_dir=s.etc,
                         cwd=str(s.ws))  # fmt: skip
    orch = Orchestrator(Policy(), person, ExecContext(approval, SandboxMode.DANGER_FULL_ACCESS),
                        codex_home=str(s.home), deny_read=(), answerers=stage)  # fmt: skip
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(s.root)}
    return asyncio.run(orch.run(ExecRequest(("bash", "-lc", command), str(s.ws), env=env)))
