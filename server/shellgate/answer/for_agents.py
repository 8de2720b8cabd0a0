"""The admin's Codex hooks for another agent's command (Claude Code, Gemini CLI, Copilot CLI,
VS Code's agent) through ShellGate's hook: one admin policy governs every agent. Only the
managed hooks of `/etc/codex/requirements.toml` run here (no trust needed, as in Codex); the
user's own Codex hooks stay Codex's. For Codex itself ShellGate's hook does nothing of this:
Codex runs its hooks itself.

Synchronous: a hook process answers the agent once and exits.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path

from shellgate.answer.codex_hooks import HookSet, managed_only
from shellgate.answer.hooks import SessionHooks
from shellgate.approval.answerers import Answered, Before, ToPerson
from shellgate.approval.question import ApprovalRequest, RequestKind
from shellgate.codexconfig import SYSTEM_FOLDER, codex_home_folder
from shellgate.codexconfig.requirements import load_requirements


def admin_hooks(
    session_id: str | None, model: str, env: Mapping[str, str] | None = None,
    system_dir: str = SYSTEM_FOLDER, transcript_path: str | None = None,
) -> SessionHooks | None:  # fmt: skip
    """The admin's Codex hooks, None when there are none (the common case costs one stat).
    Raises RequirementsError for a requirements.toml Codex refuses."""
    if not os.path.exists(os.path.join(system_dir, "requirements.toml")):
        return None
    found: HookSet = managed_only(load_requirements(Path(system_dir)))
    if not found:
        return None
    hooks = SessionHooks(found, codex_home_folder(env), model=model, env=env,
                         transcript_path=transcript_path)  # fmt: skip
    if session_id:
        hooks.session_id = session_id
    return hooks


def before(hooks: SessionHooks, command: str, cwd: str) -> Before:
    """PreToolUse: refused, rewritten, or asked (a hook failed)."""
    return asyncio.run(hooks.pre_tool_use(command, cwd, "call_shellgate"))


def permission(
    hooks: SessionHooks, command: str, cwd: str, justification: str | None
) -> Answered | ToPerson | None:
    """PermissionRequest: the admin's hooks answer the question before the person."""
    request = ApprovalRequest("hook", RequestKind.EXEC, ("bash", "-lc", command), cwd, None, (),
                              justification=justification)  # fmt: skip
    return asyncio.run(hooks.answer(request))
