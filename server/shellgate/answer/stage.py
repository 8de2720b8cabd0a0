"""The approval seam's answerers for one session, built once from Codex's configuration: its
hooks (the admin's and the user's trusted ones) and, when configured, its reviewer. Every
entry point that runs commands (`run`, the agent, the MCP `shell` tool, the editor's runs)
builds its stage here and hands it to the orchestrator."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from shellgate.answer.codex_hooks import HookSet, discover, project_dirs
from shellgate.answer.hooks import SessionHooks
from shellgate.answer.review_client import Provider
from shellgate.answer.review_config import ReviewConfig, review_config
from shellgate.answer.review_request import Entry, policy_text
from shellgate.approval.answerers import Answerer, AnswerStage, reviews
from shellgate.approval.context import ApprovalPolicy, ApprovalPolicyKind
from shellgate.approval.question import ApprovalRequest, Approver
from shellgate.codexconfig import SYSTEM_FOLDER
from shellgate.codexconfig.requirements import Requirements, load_requirements
from shellgate.codexconfig.resolve import resolve
from shellgate.codexconfig.trust import ConfigError

if TYPE_CHECKING:
    from shellgate.answer.reviewer import Reviewer


def session_hooks(
    codex_home: Path, requirements: Requirements | None, *, approval: ApprovalPolicy,
    model: str = "shellgate", env: Mapping[str, str] | None = None,
    transcript_path: str | None = None, system_dir: Path | None = None, cwd: str | None = None,
    project: str | None = None,
) -> SessionHooks | None:  # fmt: skip
    """The session's Codex hooks, None when Codex would run none. `cwd`: the session's folder,
    whose trusted project's `.codex` hooks run too (`project`: `--project DIR` instead)."""
    chosen = Path(project) if project else None
    projects = project_dirs(Path(cwd), codex_home, chosen) if cwd else ()
    found: HookSet = discover(codex_home, requirements, projects=projects,
                              system_dir=Path(SYSTEM_FOLDER) if system_dir is None else system_dir)
    if not found:
        return None
    return SessionHooks(found, str(codex_home), model=model, env=env,
                        transcript_path=transcript_path,
                        never=approval.kind is ApprovalPolicyKind.NEVER)  # fmt: skip


def reviewer_for(
    review: ReviewConfig | None, approval: ApprovalPolicy, *,
    transcript: Callable[[], Sequence[Entry]] = lambda: (), env: Mapping[str, str] | None = None,
    session_id: str | None = None, sandbox: str = "read-only",
    on_verdict: Callable[[ApprovalRequest, dict[str, str | None]], None] | None = None,
) -> Reviewer | None:  # fmt: skip
    """The session's reviewer, when auto-review is on and the policy routes questions to it
    (on-request, granular); raises ConfigError when it is on and no model is configured."""
    if review is None or not review.reviews or not reviews(approval):
        return None
    if review.provider is None:
        raise ConfigError(
            "auto-review asks the session's model, and none is configured: set `model` (and "
            "`model_provider`) in Codex's config.toml", path="config.toml", code="config-type")
    policy = policy_text(review.user_policy, review.admin_policy, review.admin_extra)
    # deferred: the reviewer and httpx (~30 ms), only when one reviews
    from shellgate.answer.reviewer import Reviewer, read_only_look

    found = Reviewer(review.provider, policy, transcript, review.timeout_ms,
                     env=dict(os.environ if env is None else env), read_only=read_only_look,
                     sandbox=sandbox, on_verdict=on_verdict)  # fmt: skip
    if session_id:
        found.session_id = session_id
    return found


def answer_stage(
    person: Approver, *, codex_home: Path, approval: ApprovalPolicy,
    system_dir: Path | None = None, reviewer: Answerer | None = None, model: str = "shellgate",
    env: Mapping[str, str] | None = None, transcript_path: str | None = None,
    cwd: str | None = None, project: str | None = None,
) -> AnswerStage:  # fmt: skip
    """Codex's order: PermissionRequest hooks, then the reviewer, then `person`. Raises
    RequirementsError or ConfigError where Codex would not start (the caller has usually
    reported those already, loading the rules)."""
    system = Path(SYSTEM_FOLDER) if system_dir is None else system_dir
    requirements = load_requirements(system)
    hooks = session_hooks(codex_home, requirements, approval=approval, model=model, env=env,
                          transcript_path=transcript_path, system_dir=system, cwd=cwd,
                          project=project)  # fmt: skip
    answerers: list[Answerer] = []
    if hooks is not None:
        answerers.append(hooks)
    if reviewer is not None:
        answerers.append(reviewer)
    return AnswerStage(person, tuple(answerers), hooks)


def configured_review(
    cwd: str, codex_home: Path, *, approve_for_me: bool = False,
    provider: Provider | None = None, system_dir: Path | None = None,
) -> ReviewConfig:  # fmt: skip
    """Who reviews for a session in `cwd`, from Codex's config files and the admin's
    requirements; `provider`: the session's own model (the embedded agent's), else Codex's
    `model` / `model_provider`. Raises ConfigError or RequirementsError as Codex would stop."""
    config = resolve(Path(cwd), codex_home=codex_home, system_dir=system_dir)
    found = review_config(config.config_files, config.requirements, approve_for_me=approve_for_me)
    if provider is not None:
        found = replace(found, provider=provider)
    return found
