"""The admin's Codex hooks for another agent's command (Claude Code, Gemini CLI, Copilot CLI,
VS Code's agent) through ShellGate's hook: one admin policy governs every agent. Only the
admin's hooks run here (`/etc/codex/requirements.toml` `[hooks]`, then `/etc/codex/hooks.json`
and `config.toml`; no trust needed, as in Codex); the user's own Codex hooks stay Codex's.
For Codex itself ShellGate's hook does nothing of this: Codex runs its hooks itself.

Synchronous: a hook process answers the agent once and exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
    """The admin's Codex hooks (requirements.toml's, the system folder's hooks.json and
    config.toml's), None when there are none (the common case costs three stats). Raises
    RequirementsError or ConfigError for a file Codex (or ShellGate) refuses."""
    files = ("requirements.toml", "hooks.json", "config.toml")
    if not any(os.path.exists(os.path.join(system_dir, f)) for f in files):
        return None
    found: HookSet = managed_only(load_requirements(Path(system_dir)), Path(system_dir))
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


HOST_DEADLINE_S = 55.0  # under the agents' own hook timeouts (Claude Code, Gemini CLI: 60 s)
MARGIN_S = 3.0  # the answer must still reach the host in time


def review(
    command: str, cwd: str, justification: str | None, reason: str | None, *, agent: str,
    session_id: str | None,
    approval_policy: str | None, approve_for_me: bool, transcript_path: str | None,
    deadline_s: float | None, env: Mapping[str, str] | None = None,
) -> tuple[Answered | None, dict[str, str | None]] | None:  # fmt: skip
    """Another agent's question to Codex's reviewer, when it is on (`--approve-for-me` on the
    hook, or `approvals_reviewer = "auto_review"` in Codex's config for the cwd) and the policy
    routes it there; None: the person (the editor, else the agent's prompt) is asked. The
    review's deadline is clamped below the host's hook deadline; a failed or slow review is a
    refusal with Codex's reason, never an allow."""
    # deferred: the reviewer (~60 ms), only for a question
    from shellgate.answer.stage import configured_review, reviewer_for
    from shellgate.answer.transcripts import from_agent_file
    from shellgate.approval.context import ON_REQUEST, ApprovalPolicy
    from shellgate.codexconfig import codex_home

    found = configured_review(cwd, codex_home(env), approve_for_me=approve_for_me)
    policy = ApprovalPolicy.parse(approval_policy) if approval_policy else ON_REQUEST
    limit = (deadline_s or HOST_DEADLINE_S) - MARGIN_S
    read: list[Any] = []  # the agent's transcript, read only when a reviewer will use it

    def transcript() -> Any:
        if not read:
            read.append(from_agent_file(transcript_path))
        return read[0]

    reviewer = reviewer_for(found, policy, transcript=transcript, env=env)
    if reviewer is None:
        return None
    entries = transcript()
    reviewer.timeout_ms = max(1000, min(reviewer.timeout_ms, int(limit * 1000)))
    kept = _state_path(agent, session_id, cwd, env)
    users = sum(e.kind == "user" for e in entries)
    state = _load(kept)
    if state is not None:
        reviewer.restore(state)
        if users > int(state.get("users", 0)):
            reviewer.new_turn()  # the user spoke since: a new turn for the circuit breaker
    request = ApprovalRequest("hook", RequestKind.EXEC, ("/bin/bash", "-lc", command), cwd,
                              reason, (), agent=agent, justification=justification)  # fmt: skip
    answered = asyncio.run(reviewer.answer(request))
    _save(kept, {**reviewer.snapshot(), "users": users})
    return answered, reviewer.verdict_json()


KEEP_SECONDS = 2 * 24 * 3600  # a session's reviewer conversation, unused this long, goes


def _state_path(
    agent: str, session_id: str | None, cwd: str, env: Mapping[str, str] | None
) -> str | None:
    """Where one agent session's reviewer conversation is kept between hook calls (private
    to the user: it holds the transcript's words); None without a session id."""
    if not session_id:
        return None
    environ = os.environ if env is None else env
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha256(json.dumps([agent, session_id, cwd]).encode()).hexdigest()[:32]
    return os.path.join(base, "shellgate", "reviews", key + ".json")


def _load(path: str | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    keys = ("session_id", "history", "seen", "denials", "recent")
    return data if isinstance(data, dict) and all(k in data for k in keys) else None


def _save(path: str | None, state: dict[str, Any]) -> None:
    """Written whole (a temporary file renamed), 0600 in a 0700 folder; old ones pruned."""
    if path is None:
        return
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f)
        os.replace(tmp, path)
        now = time.time()
        for name in os.listdir(folder):
            old = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                if now - os.stat(old).st_mtime > KEEP_SECONDS:
                    os.unlink(old)
    except OSError:
        pass  # the next call starts a new conversation: nothing is lost but context
