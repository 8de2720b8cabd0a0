"""`decide(request)`: the whole chain for an outside agent's command, with nobody asked.

The rules are the ones Codex would load from disk for a session in `request.cwd` (never an
editor buffer), cached with rules.layer_cache; the explain engine gives the decision, Codex's
reason and amendment, and the trace. Used in-process by the hooks and by the broker endpoint.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from shellgate.broker.protocol import AgentDecision, AgentRequest, ProtocolError

if TYPE_CHECKING:
    from shellgate.approval.context import ExecContext
    from shellgate.explain.model import Explanation
    from shellgate.rules.layers import RulesLayer

_DECISION = {"skip": "allow", "needs_approval": "prompt", "forbidden": "forbidden"}


def decide(
    request: AgentRequest,
    *,
    codex_home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> AgentDecision:
    """Raises ProtocolError for a request that cannot be decided (bad policy or sandbox name,
    a cwd that is not a folder). Rules that do not load decide "forbidden": Codex would run
    with none of them, and nothing may run on a half-read policy."""
    from shellgate.approval.requirement import Forbidden, NeedsApproval, requirement_type
    from shellgate.explain import explain, to_json
    from shellgate.rules.errors import RulesError
    from shellgate.rules.layer_cache import load_layers_cached

    if not os.path.isdir(request.cwd):
        raise ProtocolError(f"cwd {request.cwd} is not a directory")
    context = context_of(request)
    try:
        layers = layers_for(Path(request.cwd), codex_home=codex_home, env=env)
        policy = load_layers_cached(layers)
    except RulesError as err:
        why = f"the rules do not load, so nothing runs unasked: {err}"
        return AgentDecision("forbidden", "forbidden", why, None, None, False)
    files = tuple((path, layer.name) for layer in layers for path in layer.files)
    ex = explain(list(request.argv), policy=policy, context=context, cwd=request.cwd,
                 rules_files=files)  # fmt: skip
    req = ex.requirement
    kind = requirement_type(req)
    amendment = None if isinstance(req, Forbidden) else req.proposed_execpolicy_amendment
    reason: str | None = req.reason if isinstance(req, Forbidden | NeedsApproval) else None
    return AgentDecision(
        decision=_DECISION[kind],
        requirement=kind,
        reason=reason or _deciding_words(ex),
        explain=to_json(ex),
        amendment=amendment,
        hidden=is_hidden(ex),
    )


def context_of(request: AgentRequest) -> ExecContext:
    from shellgate.approval.context import (
        ApprovalPolicy,
        ExecContext,
        SandboxMode,
        SandboxPermissions,
    )

    try:
        return ExecContext(
            approval_policy=ApprovalPolicy.parse(request.approval_policy),
            sandbox=SandboxMode(request.sandbox),
            sandbox_permissions=SandboxPermissions(request.sandbox_permissions),
            justification=request.justification,
        )
    except ValueError as exc:
        raise ProtocolError(str(exc)) from None


def layers_for(
    cwd: Path, *, codex_home: Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[RulesLayer, ...]:
    """The layers Codex loads for a session in `cwd`: the project's only when Codex trusts it."""
    try:
        from shellgate.rules.trust import codex_layers_for
    except ImportError:  # before the trust engineer's module lands: the git root, trusted
        from shellgate.rules.layers import discover_layers

        return discover_layers(codex_home=codex_home, project=_git_root(cwd), env=env)
    layers: tuple[RulesLayer, ...] = codex_layers_for(cwd, codex_home=codex_home, env=env)[0]
    return layers


def _git_root(cwd: Path) -> Path | None:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


_HIDING = ("hidden-wrapper", "hidden-shell", "hidden-substitution")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "python", "python3", "perl"})


def is_hidden(ex: Explanation) -> bool:
    """Bash would run a command the rules never judged: one behind a wrapper (`timeout`,
    `time`, `env`), in `bash -c` source, in a substitution, or a here-document fed to an
    interpreter (explain's warnings). A plain redirection hides no command."""
    for w in ex.warnings:
        if w.code in _HIDING:
            return True
        inner = w.inner_command or ("",)
        if w.code == "hidden-heredoc" and inner[0].rsplit("/", 1)[-1] in _SHELLS:
            return True
    return False


def _deciding_words(ex: Explanation) -> str | None:
    """Why a command runs unasked (Codex gives no reason then): the rule or heuristic."""
    for seg in ex.segments:
        for hit in seg.rules:
            if hit.justification:
                return hit.justification
    for seg in ex.segments:
        if seg.heuristic is not None:
            return seg.heuristic.why
    return None
