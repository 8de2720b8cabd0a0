"""The approval seam's answerers for one session, built once from Codex's configuration: its
hooks (the admin's and the user's trusted ones) and, when configured, its reviewer. Every
entry point that runs commands (`run`, the agent, the MCP `shell` tool, the editor's runs)
builds its stage here and hands it to the orchestrator."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from shellgate.answer.codex_hooks import HookSet, discover
from shellgate.answer.hooks import SessionHooks
from shellgate.approval.answerers import Answerer, AnswerStage
from shellgate.approval.context import ApprovalPolicy, ApprovalPolicyKind
from shellgate.approval.question import Approver
from shellgate.codexconfig import SYSTEM_FOLDER
from shellgate.codexconfig.requirements import Requirements, load_requirements


def session_hooks(
    codex_home: Path, requirements: Requirements | None, *, approval: ApprovalPolicy,
    model: str = "shellgate", env: Mapping[str, str] | None = None,
    transcript_path: str | None = None,
) -> SessionHooks | None:  # fmt: skip
    """The session's Codex hooks, None when Codex would run none."""
    found: HookSet = discover(codex_home, requirements)
    if not found:
        return None
    return SessionHooks(found, str(codex_home), model=model, env=env,
                        transcript_path=transcript_path,
                        never=approval.kind is ApprovalPolicyKind.NEVER)  # fmt: skip


def answer_stage(
    person: Approver, *, codex_home: Path, approval: ApprovalPolicy,
    system_dir: Path | None = None, reviewer: Answerer | None = None, model: str = "shellgate",
    env: Mapping[str, str] | None = None, transcript_path: str | None = None,
) -> AnswerStage:  # fmt: skip
    """Codex's order: PermissionRequest hooks, then the reviewer, then `person`. Raises
    RequirementsError or ConfigError where Codex would not start (the caller has usually
    reported those already, loading the rules)."""
    requirements = load_requirements(Path(SYSTEM_FOLDER) if system_dir is None else system_dir)
    hooks = session_hooks(codex_home, requirements, approval=approval, model=model, env=env,
                          transcript_path=transcript_path)  # fmt: skip
    answerers: list[Answerer] = []
    if hooks is not None:
        answerers.append(hooks)
    if reviewer is not None:
        answerers.append(reviewer)
    return AnswerStage(person, tuple(answerers), hooks)
