"""The hook's one seam to the broker: `decide` (the whole chain, no human) and `ask` (the
editor's dialog).

Interim, until `shellgate.broker` lands (its names and shapes, so that the swap is three
imports): `decide` runs the chain in-process on the user's Codex rules (no project layer: Codex's
project trust is not resolved yet), `hidden` is never set, and `ask` finds no editor (every
caller then takes its documented fallback).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Decision = Literal["allow", "prompt", "forbidden"]
AnswerKind = Literal[
    "accept", "acceptForSession", "acceptWithExecpolicyAmendment", "decline", "cancel", "timeout"
]


@dataclass(frozen=True)
class AgentRequest:
    agent: str
    session_id: str | None
    cwd: str
    command: str | tuple[str, ...]  # a script as the agent gave it (run as `bash -lc`), or an argv
    justification: str | None = None
    approval_policy: str = "on-request"
    sandbox: str = "workspace-write"
    sandbox_permissions: str = "use_default"


@dataclass(frozen=True)
class AgentDecision:
    decision: Decision
    requirement: str  # "skip" | "needs_approval" | "forbidden"
    reason: str | None
    explain: dict[str, Any] | None  # None: the rules do not load
    amendment: tuple[str, ...] | None
    hidden: bool


@dataclass(frozen=True)
class AgentAnswer:
    answer: AnswerKind
    message: str | None = None
    amendment_written: str | None = None


def decide(request: AgentRequest, env: Mapping[str, str] | None = None) -> AgentDecision:
    """The chain's verdict, from the decision memo when this very request was judged on the
    same rules and code before."""
    import json

    from shellgate.hooks import memo

    env = os.environ if env is None else env
    key = json.dumps(dataclasses.asdict(request), sort_keys=True).encode()
    path = memo.path_for(key, request.cwd, env)
    kept = memo.load(path) if path else None
    if kept is not None:
        try:
            return AgentDecision(**{**kept, "amendment": _tuple(kept["amendment"])})
        except (TypeError, KeyError):
            pass  # an entry of another shape: judge afresh
    decision = _decide(request, env)
    if path is not None and decision.explain is not None:
        memo.store(path, dataclasses.asdict(decision))
    return decision


def _tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _decide(request: AgentRequest, env: Mapping[str, str]) -> AgentDecision:
    """The chain's verdict. Rules that do not load decide "forbidden": Codex would run with none
    of them, and nothing may run on a half-read policy."""
    from shellgate.approval.context import (
        ApprovalPolicy,
        ExecContext,
        SandboxMode,
        SandboxPermissions,
    )
    from shellgate.approval.requirement import (
        Forbidden,
        NeedsApproval,
        Skip,
        requirement_type,
    )
    from shellgate.explain import explain, to_json
    from shellgate.rules.errors import RulesError
    from shellgate.rules.layer_cache import load_layers_cached
    from shellgate.rules.layers import default_codex_home, discover_layers

    codex_home = default_codex_home(env)
    try:
        layers = discover_layers(codex_home=codex_home, project=None, extra_rules=[])
        policy = load_layers_cached(layers)
    except RulesError as err:
        why = f"the rules do not load, so nothing runs unasked: {err}"
        return AgentDecision("forbidden", "forbidden", why, None, None, False)
    context = ExecContext(
        approval_policy=ApprovalPolicy.parse(request.approval_policy),
        sandbox=SandboxMode(request.sandbox),
        sandbox_permissions=SandboxPermissions(request.sandbox_permissions),
        justification=request.justification,
    )
    files = tuple((f, layer.name) for layer in layers for f in layer.files)
    command = request.command if isinstance(request.command, str) else list(request.command)
    ex = explain(command, policy=policy, context=context, cwd=request.cwd, rules_files=files)
    req = ex.requirement
    decision: Decision
    reason: str | None
    if isinstance(req, Forbidden):
        decision, reason, amendment = "forbidden", req.reason, None
    elif isinstance(req, NeedsApproval):
        decision, reason = "prompt", req.reason
        amendment = req.proposed_execpolicy_amendment
    else:
        assert isinstance(req, Skip)
        decision, reason, amendment = "allow", None, req.proposed_execpolicy_amendment
    return AgentDecision(decision, requirement_type(req), reason, to_json(ex), amendment, False)


def ask(request: AgentRequest, *, timeout: float) -> AgentAnswer | None:
    """The editor's answer, or None when no editor is reachable."""
    return None
