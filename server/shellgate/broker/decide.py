"""`decide(request)`: the whole chain for an outside agent's command, with nobody asked.

The rules are the ones Codex would load from disk for a session in `request.cwd` (never an
editor buffer), cached with codexconfig.layer_cache; the explain engine gives the decision, Codex's
reason and amendment, and the trace. Used in-process by the hooks and by the broker endpoint.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from shellgate.approval.beyond import runs_of
from shellgate.approval.context import (
    ApprovalPolicy,
    ExecContext,
    SandboxMode,
    SandboxPermissions,
)
from shellgate.approval.fallback import make_fallback
from shellgate.approval.matched import MatchedRule
from shellgate.approval.requirement import Forbidden, NeedsApproval, Skip, requirement_type
from shellgate.broker.protocol import AgentDecision, AgentRequest, ProtocolError
from shellgate.codexconfig.layer_cache import load_layers_cached
from shellgate.codexconfig.requirements import RequirementsError
from shellgate.codexconfig.resolve import codex_layers_for, resolve
from shellgate.codexconfig.session import SessionError
from shellgate.codexconfig.trust import ConfigError
from shellgate.explain import explain, to_json
from shellgate.rules.decision import Decision
from shellgate.rules.errors import RulesError
from shellgate.shell.known_safe import is_known_safe_command

if TYPE_CHECKING:
    from shellgate.codexconfig.layers import RulesLayer
    from shellgate.codexconfig.trust import ProjectTrust
    from shellgate.explain.model import Explanation
    from shellgate.rules.policy import Policy

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
    if not os.path.isabs(request.cwd):
        raise ProtocolError(f"cwd must be an absolute path (got {request.cwd!r})")
    if not os.path.isdir(request.cwd):
        raise ProtocolError(f"cwd {request.cwd} is not a directory")
    context = context_of(request)
    try:
        # Codex's whole configuration for the cwd: every tier, the admin's requirements (a
        # broken requirements.toml, or a session they refuse, stops Codex: nothing runs)
        config = resolve(Path(request.cwd), codex_home=codex_home, env=env)
        layers, trust = config.layers, config.trust
        # no policy given (a hook installed without --approval-policy): Codex's config files'
        given = None if request.approval_policy is None else context.approval_policy
        session = config.session(given, context.sandbox)
        policy = _policy(layers)
    except RulesError as err:
        why = f"the rules do not load, so nothing runs unasked: {err}"  # err names the file
        if isinstance(err, RequirementsError | SessionError):
            why = f"Codex would not start: {err}"
        elif isinstance(err, ConfigError):  # err: config.toml:line:column and what is wrong
            why = f"Codex's config.toml does not load, so Codex would not start: {err}"
        return AgentDecision("forbidden", "forbidden", why, None, None, False)
    if session.clamped or session.deny_read or given is None:
        context = dataclasses.replace(
            context, approval_policy=session.approval_policy, sandbox=session.sandbox,
            fs_policy_has_denied_reads=bool(session.deny_read),
        )  # fmt: skip
    files = tuple((path, layer.name) for layer in layers for path in layer.files)
    ex = explain(list(request.argv), policy=policy, context=context, cwd=request.cwd,
                 rules_files=files, project=trust, session=session)  # fmt: skip
    req = ex.requirement if ex.gate is None else ex.gate.requirement  # ShellGate is the gate
    kind = requirement_type(req)
    amendment = None if isinstance(req, Forbidden) else req.proposed_execpolicy_amendment
    reason: str | None = req.reason if isinstance(req, Forbidden | NeedsApproval) else None
    first, gate, split = ex.first_attempt, ex.gate, ex.split_difference
    return AgentDecision(
        decision=_DECISION[kind],
        requirement=kind,
        reason=reason or _deciding_words(ex),
        explain=to_json(ex),
        amendment=amendment,
        hidden=gate is not None and not isinstance(gate.requirement, Skip),
        confine=kind != "skip" or needs_confining(request.argv, policy, context),
        matched=_matched(ex),
        notes=tuple(w.message for w in ex.warnings),
        sandbox=session.sandbox.value if session.sandbox != session.requested_sandbox else None,
        deny_read=bool(session.deny_read),
        warnings=session.warnings,
        # bash runs a command no rule allows (`gate` a Skip without the bypass): not outside
        outside=first is not None and not first.sandboxed
        and not (gate is not None and isinstance(gate.requirement, Skip)
                 and not gate.requirement.bypass_sandbox),
        split=None if split is None else split.why,
        bash_runs=() if split is None else split.bash or (),
    )  # fmt: skip


def _matched(ex: Explanation) -> tuple[MatchedRule, ...]:
    """Each segment's rules, else the heuristic that decided it."""
    out: list[MatchedRule] = []
    for seg in ex.segments:
        for hit in seg.rules:
            where = None if hit.path is None else f"{hit.path}:{hit.line}:{hit.column}"
            out.append(MatchedRule(hit.decision.value, hit.matched_prefix, where,
                                   hit.justification, layer=hit.layer))  # fmt: skip
        if not seg.rules and seg.heuristic is not None:
            out.append(MatchedRule(seg.heuristic.decision.value, seg.command, None,
                                   seg.heuristic.why, heuristic=True))  # fmt: skip
    return tuple(out)


def needs_confining(argv: Sequence[str], policy: Policy, context: ExecContext) -> bool:
    """Allowed only because a sandbox would hold it: some command bash runs (through runners
    and shells handed a script too: `timeout 60 touch y`, `bash -c 'touch y'`) is neither
    allowed by a rule nor read-only (Codex's known-safe list). A rule allowing the runner or
    the shell does not vouch for what it runs."""
    fallback = make_fallback(context)
    for run in runs_of(argv):
        if run.unknowable is not None or run.dynamic or run.open_tail or not run.words:
            return True
        words = list(run.words)
        if is_known_safe_command(words):
            continue
        found = policy.check(words, fallback, resolve_host_executables=True)
        if not (found.is_match() and found.decision is Decision.ALLOW):
            return True
    return False


def context_of(request: AgentRequest) -> ExecContext:
    try:
        policy = ApprovalPolicy.parse(request.approval_policy or "on-request")
    except ValueError as exc:
        raise ProtocolError(f"approval policy: {exc}") from None
    try:
        sandbox = SandboxMode(request.sandbox)
        permissions = SandboxPermissions(request.sandbox_permissions)
    except ValueError:
        raise ProtocolError(
            f"unknown sandbox {request.sandbox!r} or sandbox permissions "
            f"{request.sandbox_permissions!r}"
        ) from None
    return ExecContext(
        approval_policy=policy,
        sandbox=sandbox,
        sandbox_permissions=permissions,
        justification=request.justification,
    )


_memo: dict[tuple[object, ...], Policy] = {}


def _policy(layers: tuple[RulesLayer, ...]) -> Policy:
    """The layers' policy, kept in memory while no file changes (a long-lived endpoint asks
    again and again); layer_cache keeps it across processes (a hook asks once)."""
    try:
        stats = [
            (path, st.st_mtime_ns, st.st_size, st.st_ino)
            for layer in layers
            for path in layer.files
            for st in (os.stat(path),)
        ]
        key: tuple[object, ...] = (layers, *stats)
    except OSError:
        return load_layers_cached(layers)  # the loader reports it properly
    policy = _memo.get(key)
    if policy is None:
        policy = load_layers_cached(layers)
        _memo.clear()  # one entry per process is enough: sessions share their layers
        _memo[key] = policy
    return policy


def layers_for(
    cwd: Path, *, codex_home: Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[tuple[RulesLayer, ...], ProjectTrust]:
    """The layers Codex loads for a session in `cwd` (the admin's, the user's, a project's only
    when Codex trusts it, the requirements), and that trust."""
    return codex_layers_for(cwd, codex_home=codex_home, env=env)


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
