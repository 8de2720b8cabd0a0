"""Codex's flow for one command (spec C.6): requirement -> approval -> sandbox -> attempt ->
escalation on a real denial -> retry with the narrowest extra permission -> result.

A forbidden command never runs. Approvals come from an `Approver`; an unanswered one counts as
denied. Without a working sandbox we fail closed: what would have run sandboxed is asked about,
and the user is told why.
"""

from __future__ import annotations

import contextlib
import enum
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from shellgate.approval.cache import ApprovalStore, shell_approval_key
from shellgate.approval.context import (
    ApprovalPolicyKind,
    ExecContext,
    SandboxMode,
    SandboxPermissions,
)
from shellgate.approval.defaults import (
    SandboxOverride,
    sandbox_override_for_first_attempt,
    wants_no_sandbox_approval,
)
from shellgate.approval.fallback import make_fallback
from shellgate.approval.requirement import (
    ExecApprovalRequirement,
    Forbidden,
    NeedsApproval,
    Skip,
    commands_for_exec_policy,
    create_exec_approval_requirement,
)
from shellgate.approval.review import ReviewDecision
from shellgate.exec.approver import (
    Answer,
    ApprovalRequest,
    Approver,
    MatchedRule,
    NetworkAction,
    RequestKind,
    ask_with_timeout,
    exec_choices,
    network_choices,
    next_request_id,
    patch_choices,
)
from shellgate.exec.denial import Outcome
from shellgate.exec.network import HostRules, NetworkProxy
from shellgate.exec.patch import PatchVerdict, assess_patch_safety
from shellgate.exec.placeholders import runtime_dir
from shellgate.exec.probe import SandboxProbe, probe_sandbox
from shellgate.exec.runner import AttemptResult, run_attempt
from shellgate.exec.sandbox import (
    FsAccess,
    NetworkAccess,
    SandboxSetupError,
    SandboxSpec,
    build_spec,
)
from shellgate.rules.amend import append_allow_prefix_rule, append_network_rule, prefix_rule_line
from shellgate.rules.decision import Decision
from shellgate.rules.errors import RulesError
from shellgate.rules.policy import HeuristicsRuleMatch, Policy, PrefixRuleMatch

if TYPE_CHECKING:
    from shellgate.replay.ladder import Rung

MAX_ATTEMPTS = 3
REJECTED_BY_USER = "rejected by user"


class Status(enum.Enum):
    COMPLETED = "completed"  # it ran (whatever its exit code, denied by the sandbox or not)
    FORBIDDEN = "forbidden"  # the policy refused it: never ran
    DENIED = "denied"  # the user said no, or did not answer in time
    ABORTED = "aborted"  # the user said stop: the caller's turn ends
    SANDBOX_ERROR = "sandbox-error"  # the sandbox could not be set up


@dataclass(frozen=True)
class ExecRequest:
    command: tuple[str, ...]
    cwd: str
    sandbox_permissions: SandboxPermissions = SandboxPermissions.USE_DEFAULT
    justification: str | None = None
    prefix_rule: tuple[str, ...] | None = None
    timeout: float | None = None  # the command's; None = the orchestrator's default
    env: Mapping[str, str] | None = None
    stdin: bytes | None = None


@dataclass(frozen=True)
class AttemptInfo:
    sandboxed: bool
    outcome: Outcome
    exit_code: int | None
    permission: str  # "sandbox", "sandbox + writable /x", "sandbox + host h", "no sandbox"


@dataclass(frozen=True)
class ExecResult:
    status: Status
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    reason: str | None = None
    attempts: tuple[AttemptInfo, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


Event = Mapping[str, object]


@dataclass(frozen=True)
class PatchDecision:
    status: Status  # COMPLETED means: apply it
    sandboxed: bool = True  # apply it inside the sandbox
    reason: str | None = None


@dataclass(frozen=True)
class _Grant:
    """What one attempt may do beyond the configured sandbox."""

    no_sandbox: bool = False
    extra_roots: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.no_sandbox:
            return "no sandbox"
        parts = ["sandbox"]
        parts += [f"writable {r}" for r in self.extra_roots]
        parts += [f"host {h}" for h in self.hosts]
        return " + ".join(parts)


def default_codex_home() -> str:
    from shellgate.codexconfig import codex_home_folder

    return codex_home_folder()


def _default_network() -> NetworkAccess:
    # Per-host approvals need the in-sandbox bridge (socat); without it the network is simply off.
    return NetworkAccess.PROXY if shutil.which("socat") else NetworkAccess.OFF


@dataclass
class Orchestrator:
    policy: Policy
    approver: Approver
    context: ExecContext = field(default_factory=ExecContext)
    codex_home: str = field(default_factory=default_codex_home)
    writable_roots: tuple[str, ...] = ()
    network: NetworkAccess | None = None  # None: by host through the proxy when possible
    approval_timeout: float | None = 300.0
    command_timeout: float | None = None
    probe: SandboxProbe | None = None
    on_event: Callable[[Event], None] | None = None
    store: ApprovalStore = field(default_factory=ApprovalStore)
    host_rules: HostRules = field(default_factory=HostRules)
    proxy_log: str | None = None
    _proxy: NetworkProxy | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.network is None:
            self.network = _default_network()
        for rule in self.policy.network_rules:
            if rule.decision is Decision.ALLOW:
                self.host_rules.allow.add(rule.host)
            elif rule.decision is Decision.FORBIDDEN:
                self.host_rules.deny.add(rule.host)

    # -- helpers -------------------------------------------------------------------------
    @property
    def amendments_file(self) -> str:
        return os.path.join(self.codex_home, "rules", "default.rules")

    def _emit(self, name: str, /, **data: object) -> None:
        if self.on_event is not None:
            self.on_event({"event": name, **data})

    def _sandbox_probe(self) -> SandboxProbe:
        if self.probe is None:
            self.probe = probe_sandbox()
        return self.probe

    def _proxy_for(self) -> NetworkProxy:
        if self._proxy is None:
            self._proxy = NetworkProxy(self.host_rules, runtime_dir(), self.proxy_log)
        return self._proxy

    def _matched_rules(self, command: Sequence[str], ctx: ExecContext) -> tuple[MatchedRule, ...]:
        commands = commands_for_exec_policy(command)
        evaluation = self.policy.check_multiple(
            commands, make_fallback(ctx), resolve_host_executables=True
        )
        out: list[MatchedRule] = []
        for m in evaluation.matched_rules:
            if isinstance(m, PrefixRuleMatch):
                span = m.rule.span
                src = f"{span.path}:{span.line}:{span.column}" if span else None
                out.append(
                    MatchedRule(m.decision.value, tuple(m.matched_prefix), src, m.justification,
                                layer=m.rule.layer)
                )
            elif isinstance(m, HeuristicsRuleMatch):
                out.append(MatchedRule(m.decision.value, tuple(m.command), None, None, True))
        return tuple(out)

    # -- the flow ------------------------------------------------------------------------
    async def run(self, req: ExecRequest) -> ExecResult:
        command = tuple(req.command)
        if not command:
            return ExecResult(Status.FORBIDDEN, reason="empty command")
        cwd = os.path.realpath(req.cwd)
        ctx = replace(
            self.context,
            sandbox_permissions=req.sandbox_permissions,
            justification=req.justification,
            prefix_rule=req.prefix_rule,
        )
        requirement = create_exec_approval_requirement(list(command), ctx, self.policy)
        self._emit(
            "requirement", command=list(command), cwd=cwd, requirement=type(requirement).__name__
        )
        notes: list[str] = []
        sandboxed_mode = self.context.sandbox not in (
            SandboxMode.DANGER_FULL_ACCESS,
            SandboxMode.EXTERNAL_SANDBOX,
        )
        probe = self._sandbox_probe() if sandboxed_mode else None
        would_sandbox = (
            sandboxed_mode
            and not (isinstance(requirement, Skip) and requirement.bypass_sandbox)
            and not req.sandbox_permissions.requires_escalated
        )
        fail_closed = would_sandbox and probe is not None and not probe.ok
        if fail_closed and probe is not None:
            notes.append(probe.reason)
            requirement = self._fail_closed(requirement, probe.reason)
            self._emit("sandbox_unavailable", reason=probe.reason)

        if isinstance(requirement, Forbidden):
            self._emit("forbidden", reason=requirement.reason)
            return ExecResult(Status.FORBIDDEN, reason=requirement.reason, notes=tuple(notes))

        key = shell_approval_key(list(command), cwd, req.sandbox_permissions)
        already_approved = False
        one_shot = isinstance(requirement, NeedsApproval) and requirement.one_shot
        if isinstance(requirement, NeedsApproval):
            if self.store.lookup([key]) is not None:
                self._emit("approval_cached", key=key)
            else:
                answer = await self._ask_exec(command, cwd, ctx, requirement, notes)
                stop = self._apply_exec_answer(answer, requirement, key)
                if stop is not None:
                    return replace(stop, notes=tuple(notes))
            already_approved = True

        override = sandbox_override_for_first_attempt(
            req.sandbox_permissions,
            requirement,
            fs_policy_has_denied_reads=self.context.fs_policy_has_denied_reads,
        )
        grant = _Grant(
            no_sandbox=(
                not sandboxed_mode
                or fail_closed
                or override is SandboxOverride.BYPASS_SANDBOX_FIRST_ATTEMPT
            )
        )
        attempts: list[AttemptInfo] = []
        while True:
            result = await self._attempt(command, cwd, req, grant, probe)
            if isinstance(result, ExecResult):  # the sandbox could not be built
                return replace(result, attempts=tuple(attempts), notes=tuple(notes))
            cls = result.classification
            attempts.append(
                AttemptInfo(result.sandboxed, cls.outcome, result.exit_code, grant.describe())
            )
            self._emit(
                "attempt",
                sandboxed=result.sandboxed,
                outcome=cls.outcome.value,
                exit_code=result.exit_code,
                permission=grant.describe(),
                hosts=list(cls.hosts),
                paths=list(cls.paths),
            )
            if cls.outcome is Outcome.SANDBOX_ERROR:
                return ExecResult(
                    Status.SANDBOX_ERROR,
                    result.exit_code,
                    result.stdout,
                    result.stderr,
                    cls.reason,
                    tuple(attempts),
                    tuple(notes),
                )
            done = ExecResult(
                Status.COMPLETED,
                result.exit_code,
                result.stdout,
                result.stderr,
                cls.reason or None,
                tuple(attempts),
                tuple(notes),
            )
            if not (result.sandboxed and cls.outcome.is_denial) or len(attempts) >= MAX_ATTEMPTS:
                return done
            network = cls.outcome is Outcome.NETWORK_DENIED
            if not self._may_escalate(network):
                return done
            if network:
                host = cls.hosts[0]
                answer = await self._ask_network(command, cwd, host, cls.reason)
                stop = self._apply_network_answer(answer, host)
                if stop is not None:
                    return replace(stop, attempts=tuple(attempts), notes=tuple(notes))
                grant = replace(grant, hosts=(*grant.hosts, host))
                continue
            retry = self._narrower_grant(grant, cls.paths, cwd) or _Grant(no_sandbox=True)
            if already_approved and not one_shot:
                grant = retry  # the first approval covered it (C.6: no second question)
                continue
            answer = await self._ask_escalation(command, cwd, ctx, cls.reason, retry, key)
            if answer.decision is ReviewDecision.APPROVED_FOR_SESSION:
                self.store.remember([key], answer.decision)
            if not answer.decision.approves:
                status = (
                    Status.ABORTED if answer.decision is ReviewDecision.ABORT else Status.DENIED
                )
                return replace(done, status=status, reason=_refusal(answer))
            grant = retry

    def _fail_closed(
        self, requirement: ExecApprovalRequirement, why: str
    ) -> ExecApprovalRequirement:
        if isinstance(requirement, Forbidden):
            return requirement
        if self.context.approval_policy.kind is ApprovalPolicyKind.NEVER:
            return Forbidden(
                f"{why}; approval policy is never, so the command cannot run without a sandbox"
            )
        reason = f"{why}; run it without a sandbox?"
        if isinstance(requirement, NeedsApproval) and requirement.reason:
            reason = f"{requirement.reason} ({reason})"
        # Only this once or not (no amendment: it would let it run unsandboxed for good).
        return NeedsApproval(reason, None, one_shot=True)

    def _may_escalate(self, network: bool) -> bool:
        policy = self.context.approval_policy
        if policy.kind is ApprovalPolicyKind.NEVER:
            return False
        if wants_no_sandbox_approval(policy):
            return True
        # Codex asks about a blocked host under on-request too (a managed-network denial).
        return network and policy.kind is ApprovalPolicyKind.ON_REQUEST

    def _narrower_grant(self, grant: _Grant, paths: Sequence[str], cwd: str) -> _Grant | None:
        """An extra writable directory for a denied path outside every root, if that helps."""
        if grant.no_sandbox or self.context.sandbox is not SandboxMode.WORKSPACE_WRITE:
            return None
        try:
            spec = build_spec(
                FsAccess.WORKSPACE_WRITE,
                cwd,
                extra_roots=(*self.writable_roots, *grant.extra_roots),
            )
        except SandboxSetupError:
            return None
        roots: list[str] = []
        for raw in paths:
            path = os.path.realpath(os.path.join(cwd, raw))
            if any(path == p.path or path.startswith(p.path + "/") for p in spec.protected):
                return None  # .git and friends: only "no sandbox" would help
            if any(path.startswith(r.rstrip("/") + "/") for r in spec.writable_roots):
                return None
            parent = os.path.dirname(path)
            while parent != "/" and not os.path.isdir(parent):
                parent = os.path.dirname(parent)
            if parent == "/":
                return None
            roots.append(parent)
        if not roots:
            return None
        return replace(grant, extra_roots=(*grant.extra_roots, *dict.fromkeys(roots)))

    async def _attempt(
        self,
        command: tuple[str, ...],
        cwd: str,
        req: ExecRequest,
        grant: _Grant,
        probe: SandboxProbe | None,
    ) -> AttemptResult | ExecResult:
        timeout = req.timeout if req.timeout is not None else self.command_timeout
        if grant.no_sandbox:
            return await run_attempt(
                command, cwd=cwd, env=req.env, spec=None, timeout=timeout, stdin=req.stdin
            )
        fs = FsAccess(self.context.sandbox.value)
        network = self.network or NetworkAccess.OFF
        if grant.hosts and network is NetworkAccess.OFF:
            network = NetworkAccess.PROXY
        try:
            spec: SandboxSpec = build_spec(
                fs,
                cwd,
                extra_roots=(*self.writable_roots, *grant.extra_roots),
                network=network,
                runtime_dir=runtime_dir(),
            )
        except SandboxSetupError as e:
            return ExecResult(Status.SANDBOX_ERROR, reason=str(e))
        proxy = self._proxy_for() if network is NetworkAccess.PROXY else None
        return await run_attempt(
            command,
            cwd=cwd,
            env=req.env,
            spec=spec,
            probe=probe,
            proxy=proxy,
            once_hosts=grant.hosts,  # for this attempt only, not for concurrent ones
            timeout=timeout,
            stdin=req.stdin,
        )

    async def approve_patch(self, paths: Sequence[str], cwd: str) -> PatchDecision:
        """May an edit touching `paths` be applied, and in the sandbox or not (C.10)?"""
        probe = self._sandbox_probe() if self.context.sandbox in (
            SandboxMode.READ_ONLY, SandboxMode.WORKSPACE_WRITE) else None  # fmt: skip
        safety = assess_patch_safety(
            paths,
            cwd=cwd,
            policy=self.context.approval_policy,
            mode=self.context.sandbox,
            writable_roots=self.writable_roots,
            sandbox_available=probe is None or probe.ok,
        )
        self._emit("patch_safety", paths=list(paths), verdict=safety.verdict.value)
        if safety.verdict is PatchVerdict.REJECT:
            return PatchDecision(Status.FORBIDDEN, reason=safety.reason)
        if safety.verdict is PatchVerdict.AUTO_APPROVE:
            return PatchDecision(Status.COMPLETED, sandboxed=safety.sandboxed)
        keys = [f"patch:{os.path.normpath(os.path.join(cwd, p))}" for p in paths]
        if self.store.lookup(keys) is None:
            answer = await self._ask(ApprovalRequest(
                next_request_id(), RequestKind.PATCH, tuple(paths), cwd, safety.reason,
                patch_choices()))  # fmt: skip
            self.store.remember(keys, answer.decision)
            if not answer.decision.approves:
                status = (
                    Status.ABORTED if answer.decision is ReviewDecision.ABORT else Status.DENIED
                )
                return PatchDecision(status, reason=_refusal(answer))
        # Approved by the user, who saw where it writes: applied without the sandbox.
        return PatchDecision(Status.COMPLETED, sandboxed=False)

    # -- questions -----------------------------------------------------------------------
    async def _ask(self, request: ApprovalRequest) -> Answer:
        self._emit(
            "approval_request",
            id=request.id,
            kind=request.kind.value,
            command=list(request.command),
            reason=request.reason,
            choices=[c.id for c in request.choices],
        )
        answer = await ask_with_timeout(self.approver, request, self.approval_timeout)
        self._emit(
            "approval_decision",
            id=request.id,
            decision=answer.decision.value,
            network_action=answer.network_action.value if answer.network_action else None,
        )
        return answer

    async def _ask_exec(
        self,
        command: tuple[str, ...],
        cwd: str,
        ctx: ExecContext,
        requirement: NeedsApproval,
        notes: Sequence[str],
    ) -> Answer:
        amendment = requirement.proposed_execpolicy_amendment
        if requirement.one_shot:
            offered: tuple[ReviewDecision, ...] = (ReviewDecision.APPROVED, ReviewDecision.ABORT)
        else:
            offered = (
                ReviewDecision.APPROVED,
                ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT,
                ReviewDecision.APPROVED_FOR_SESSION,
                ReviewDecision.DENIED,
                ReviewDecision.ABORT,
            )
        choices = exec_choices(offered, amendment)
        return await self._ask(
            ApprovalRequest(
                next_request_id(),
                RequestKind.EXEC,
                command,
                cwd,
                requirement.reason,
                choices,
                self._matched_rules(command, ctx),
                amendment,
                prefix_rule_line(amendment) if amendment else None,
                notes=tuple(n for n in notes if n not in (requirement.reason or "")),
                ladder=self._ladder(command, ctx, amendment) if amendment else None,
            )
        )

    def _ladder(
        self, command: tuple[str, ...], ctx: ExecContext, amendment: Sequence[str]
    ) -> Callable[[], Sequence[Rung]]:
        def rungs() -> Sequence[Rung]:
            from shellgate.replay.ladder import history_index, ladder

            return ladder(command, amendment, self.policy, ctx, target=self.amendments_file,
                          history=history_index())  # fmt: skip

        return rungs

    async def _ask_escalation(
        self,
        command: tuple[str, ...],
        cwd: str,
        ctx: ExecContext,
        reason: str,
        retry: _Grant,
        key: str,
    ) -> Answer:
        offered = (
            ReviewDecision.APPROVED,
            ReviewDecision.APPROVED_FOR_SESSION,
            ReviewDecision.DENIED,
            ReviewDecision.ABORT,
        )
        if retry.no_sandbox:
            why = f"{reason}; retry without sandbox?" if "retry" not in reason else reason
        else:
            why = f"{reason}; retry with {', '.join(retry.extra_roots)} writable?"
        return await self._ask(
            ApprovalRequest(
                next_request_id(),
                RequestKind.ESCALATION,
                command,
                cwd,
                why,
                exec_choices(offered, None),
                self._matched_rules(command, ctx),
                retry_permission=retry.describe(),
            )
        )

    async def _ask_network(
        self, command: tuple[str, ...], cwd: str, host: str, reason: str
    ) -> Answer:
        return await self._ask(
            ApprovalRequest(
                next_request_id(),
                RequestKind.NETWORK,
                command,
                cwd,
                reason,
                network_choices(),
                host=host,
                retry_permission=f"host {host}",
            )
        )

    # -- answers -------------------------------------------------------------------------
    def _apply_exec_answer(
        self, answer: Answer, requirement: NeedsApproval, key: str
    ) -> ExecResult | None:
        d = answer.decision
        if d is ReviewDecision.APPROVED_FOR_SESSION:
            self.store.remember([key], d)
        elif d is ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT:
            amendment = requirement.proposed_execpolicy_amendment
            if answer.rung is not None:
                self._amend_rung(answer.rung)
            elif amendment:
                self._amend(amendment)
        if d.approves:
            return None
        return ExecResult(
            Status.ABORTED if d is ReviewDecision.ABORT else Status.DENIED, reason=_refusal(answer)
        )

    def _amend_rung(self, rung: Rung) -> None:
        """A rule the person picked on the ladder, written with its examples."""
        from shellgate.replay.ladder import write

        self.policy.add_prefix_rule(list(rung.pattern), Decision.ALLOW)
        try:
            os.makedirs(os.path.dirname(rung.target), exist_ok=True)
            written = write(rung)
            self._emit("amendment", file=rung.target, rule=rung.line, written=written)
        except (RulesError, OSError) as e:
            self._emit("amendment_failed", file=rung.target, error=str(e))

    def _amend(self, amendment: Sequence[str]) -> None:
        # The live policy first: the next identical command must not ask, even if the write fails
        # (Codex only warns then).
        self.policy.add_prefix_rule(list(amendment), Decision.ALLOW)
        try:
            os.makedirs(os.path.dirname(self.amendments_file), exist_ok=True)
            written = append_allow_prefix_rule(self.amendments_file, list(amendment))
            self._emit(
                "amendment",
                file=self.amendments_file,
                rule=prefix_rule_line(amendment),
                written=written,
            )
        except (RulesError, OSError) as e:
            self._emit("amendment_failed", file=self.amendments_file, error=str(e))

    def _apply_network_answer(self, answer: Answer, host: str) -> ExecResult | None:
        d = answer.decision
        if d is ReviewDecision.APPROVED_FOR_SESSION:
            self.host_rules.allow.add(host)
        elif d is ReviewDecision.NETWORK_POLICY_AMENDMENT:
            action = answer.network_action or NetworkAction.ALLOW
            target = (
                self.host_rules.allow if action is NetworkAction.ALLOW else self.host_rules.deny
            )
            target.add(host)
            with contextlib.suppress(RulesError, OSError):
                os.makedirs(os.path.dirname(self.amendments_file), exist_ok=True)
                for protocol in ("http", "https"):
                    append_network_rule(self.amendments_file, host, protocol, action.value)
                self._emit(
                    "network_amendment", file=self.amendments_file, host=host, action=action.value
                )
            if action is NetworkAction.DENY:
                return ExecResult(Status.DENIED, reason=f'network access to "{host}" denied')
            return None
        if d.approves:
            return None
        return ExecResult(
            Status.ABORTED if d is ReviewDecision.ABORT else Status.DENIED, reason=_refusal(answer)
        )


def _refusal(answer: Answer) -> str:
    if answer.decision is ReviewDecision.TIMED_OUT:
        return "approval timed out: treated as denied"
    return REJECTED_BY_USER
