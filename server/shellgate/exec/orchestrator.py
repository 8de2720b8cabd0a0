"""Codex's flow for one command (spec C.6): requirement -> approval -> sandbox -> attempt ->
escalation on a real denial -> retry with the narrowest extra permission -> result.

A forbidden command never runs. Approvals come from an `Approver`; an unanswered one counts as
denied. Without a working sandbox we fail closed: what would have run sandboxed is asked about,
and the user is told why.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from shellgate.approval import amendments
from shellgate.approval.answerers import (
    Answered,
    AnsweredBy,
    AnswerStage,
    Before,
    HookNote,
    hook_failed,
    rewritten,
    shell_script,
)
from shellgate.approval.beyond import gate_requirement
from shellgate.approval.cache import ApprovalStore, shell_approval_key
from shellgate.approval.context import (
    ApprovalPolicyKind,
    ExecContext,
    SandboxMode,
)
from shellgate.approval.defaults import (
    SandboxOverride,
    sandbox_override_for_first_attempt,
    wants_no_sandbox_approval,
)
from shellgate.approval.fallback import make_fallback
from shellgate.approval.matched import MatchedRule
from shellgate.approval.question import (
    ApprovalRequest,
    Approver,
    NetworkAction,
    escalation_question,
    exec_question,
    matched_rules,
    network_question,
)
from shellgate.approval.requirement import (
    ExecApprovalRequirement,
    Forbidden,
    NeedsApproval,
    Skip,
    commands_for_exec_policy,
)
from shellgate.approval.review import ReviewDecision
from shellgate.codexconfig import codex_home_folder
from shellgate.exec.denial import Outcome
from shellgate.exec.deny_read import managed_deny_read
from shellgate.exec.egress import Egress
from shellgate.exec.grants import Grant, narrower_grant
from shellgate.exec.network import HostRules
from shellgate.exec.probe import SandboxProbe, probe_sandbox
from shellgate.exec.results import (
    AttemptInfo,
    Event,
    ExecRequest,
    ExecResult,
    Status,
)
from shellgate.exec.runner import AttemptResult, run_attempt
from shellgate.exec.sandbox import (
    FsAccess,
    NetworkAccess,
    SandboxSetupError,
    SandboxSpec,
    build_spec,
)
from shellgate.exec.sandbox import default_runtime_dir as runtime_dir
from shellgate.record.build import from_flow
from shellgate.record.sink import record
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy

if TYPE_CHECKING:
    from shellgate.approval.amendments import Rung

MAX_ATTEMPTS = 3


def default_codex_home() -> str:
    return codex_home_folder()


@dataclass
class _Call:
    """One command on its way through the flow."""

    req: ExecRequest
    command: tuple[str, ...]
    cwd: str  # resolved
    ctx: ExecContext  # the configured context with this call's permissions
    requirement: ExecApprovalRequirement
    probe: SandboxProbe | None  # None: no sandbox in this mode
    first: Grant  # what the first attempt may do
    key: str  # the session's approval key
    notes: list[str]
    approved: bool = False  # a person (or the session) said yes before the first attempt
    person_only: str | None = None  # a hook failed (Codex fails open): only a person answers
    answered_by: AnsweredBy = AnsweredBy.RULES
    answers: list[Answered] = field(default_factory=list)  # every answer given, for the record
    cached: bool = False  # approved earlier in the session: not asked


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
    # The admin's deny_read (requirements.toml): masked in every sandbox; nothing runs outside one
    deny_read: tuple[str, ...] = field(default_factory=managed_deny_read)
    # Who reads the person's words after "No, and tell … what to do differently" ("the agent");
    # None: nobody (`shellgate run`), and that choice just stops.
    asker: str | None = None
    # Who answers before the person (Codex's hooks, the reviewer); None: the person alone
    answerers: AnswerStage | None = None
    originator: str = "run"  # who the decisions are for, in the record: run, agent, mcp, editor
    _egress: Egress = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.answerers is None:
            self.answerers = AnswerStage(self.approver)
        self._egress = Egress.of(self.policy, self.network, self.host_rules, self.proxy_log)
        if self.deny_read:  # Codex's clamp: full access runs read-only, allow rules sandboxed
            mode = self.context.sandbox
            if mode is SandboxMode.DANGER_FULL_ACCESS:
                mode = SandboxMode.READ_ONLY
            self.context = replace(self.context, sandbox=mode, fs_policy_has_denied_reads=True)

    # -- helpers -------------------------------------------------------------------------
    @property
    def amendments_file(self) -> str:
        return amendments.rules_file(self.codex_home)

    def _emit(self, name: str, /, **data: object) -> None:
        if self.on_event is not None:
            self.on_event({"event": name, **data})

    def _sandbox_probe(self) -> SandboxProbe:
        if self.probe is None:
            self.probe = probe_sandbox()
        return self.probe

    # -- the flow: approval -> first attempt in the sandbox -> escalation and retry ----------
    async def run(self, req: ExecRequest) -> ExecResult:
        """PreToolUse hooks -> rules -> a question (hooks, reviewer, person) -> the attempts
        -> PostToolUse hooks (spec codex-hooks-chain.md §1)."""
        if not req.command:
            return ExecResult(Status.FORBIDDEN, reason="empty command")
        started = time.monotonic()
        stage = self.stage
        call_id = f"call_{uuid.uuid4().hex[:10]}"
        script = shell_script(req.command)
        before = await stage.before(script, os.path.realpath(req.cwd), call_id)
        self._emit_hooks(before.runs)
        if before.blocked is not None:
            self._emit("forbidden", reason=before.told(script), answered_by="hook")
            refused = ExecResult(Status.FORBIDDEN, reason=before.told(script),
                                 answered_by=AnsweredBy.HOOK, context=before.context)  # fmt: skip
            record(from_flow(
                self.originator, tuple(req.command), os.path.realpath(req.cwd),
                status="forbidden", started=started, requirement="forbidden",
                reason=refused.reason, sandbox=self.context.sandbox.value,
                answered_by="hook", call_id=call_id))  # fmt: skip
            return refused
        if before.command is not None:  # all later stages judge the new command (Codex)
            script = before.command
            req = replace(req, command=rewritten(req.command, script))
        call = self._call(req)
        if before.ask is not None:
            call.person_only = before.ask
            call.requirement = hook_failed(call.requirement, before.ask,
                                           self.context.approval_policy)  # fmt: skip
        result = await self._flow(call, before, script, call_id)
        record(from_flow(
            self.originator, call.command, call.cwd, status=result.status.value,
            started=started, requirement=type(call.requirement).__name__.lower(),
            matched=self._matched_rules(call.command, call.ctx), answers=call.answers,
            cached=call.cached, attempts=result.attempts, output=result.output
            if result.status is Status.COMPLETED else result.reason, exit_code=result.exit_code,
            reason=result.reason, sandbox=self.context.sandbox.value,
            call_id=call_id))  # fmt: skip
        return result

    async def _flow(self, call: _Call, before: Before, script: str, call_id: str) -> ExecResult:
        """Past the PreToolUse hooks: the rules' requirement, a question, the attempts, then
        the PostToolUse hooks."""
        stage = self.stage
        if isinstance(call.requirement, Forbidden):
            self._emit("forbidden", reason=call.requirement.reason)
            return ExecResult(Status.FORBIDDEN, reason=call.requirement.reason,
                              notes=tuple(call.notes), context=before.context)  # fmt: skip
        stop = await self._approval(call)
        if stop is not None:
            return replace(stop, notes=tuple(call.notes), answered_by=call.answered_by,
                           context=before.context)  # fmt: skip
        result = await self._attempts(call)
        result = replace(result, answered_by=call.answered_by, context=before.context)
        if result.status is not Status.COMPLETED:
            return result
        after = await stage.after(script, call.cwd, call_id, result.output)
        self._emit_hooks(after.runs)
        return replace(result, replaced_output=after.output,
                       context=(*before.context, *after.context))  # fmt: skip

    @property
    def stage(self) -> AnswerStage:
        assert self.answerers is not None  # __post_init__
        return self.answerers

    def _emit_hooks(self, runs: Sequence[HookNote]) -> None:
        for note in runs:
            self._emit("hook", event=note.event, source=note.source, command=note.command,
                       status=note.status, text=note.text)  # fmt: skip

    def _call(self, req: ExecRequest) -> _Call:
        """What the rules require of this command, and whether it would run sandboxed: without
        a working sandbox, what would have run in it needs a person's yes (fail closed)."""
        command, cwd = tuple(req.command), os.path.realpath(req.cwd)
        ctx = replace(self.context, sandbox_permissions=req.sandbox_permissions,
                      justification=req.justification, prefix_rule=req.prefix_rule)  # fmt: skip
        from shellgate.shell.programs.git_files import git_files  # deferred: git's readers

        git = git_files(cwd, os.environ)  # read only if the command runs git
        requirement = gate_requirement(list(command), ctx, self.policy, git)  # what bash runs
        self._emit("requirement", command=list(command), cwd=cwd,
                   requirement=type(requirement).__name__)  # fmt: skip
        sandboxed_mode = self.context.sandbox not in (
            SandboxMode.DANGER_FULL_ACCESS, SandboxMode.EXTERNAL_SANDBOX)  # fmt: skip
        probe = self._sandbox_probe() if sandboxed_mode else None
        would_sandbox = sandboxed_mode and (
            bool(self.deny_read)  # nothing leaves the sandbox then (Codex)
            or (
                not (isinstance(requirement, Skip) and requirement.bypass_sandbox)
                and not req.sandbox_permissions.requires_escalated
            )
        )
        notes: list[str] = []
        fail_closed = would_sandbox and probe is not None and not probe.ok
        if fail_closed and probe is not None:
            notes.append(probe.reason)
            requirement = self._fail_closed(requirement, probe.reason)
            self._emit("sandbox_unavailable", reason=probe.reason)
        override = sandbox_override_for_first_attempt(
            req.sandbox_permissions, requirement,
            fs_policy_has_denied_reads=self.context.fs_policy_has_denied_reads)  # fmt: skip
        first = Grant(no_sandbox=not sandboxed_mode or fail_closed
                       or override is SandboxOverride.BYPASS_SANDBOX_FIRST_ATTEMPT)  # fmt: skip
        key = shell_approval_key(list(command), cwd, req.sandbox_permissions)
        return _Call(req, command, cwd, ctx, requirement, probe, first, key, notes)

    async def _approval(self, call: _Call) -> ExecResult | None:
        """Ask when the rules say so (unless approved for the session): None to go on."""
        requirement = call.requirement
        if not isinstance(requirement, NeedsApproval):
            return None
        call.approved = True
        if self.store.lookup([call.key]) is not None:
            self._emit("approval_cached", key=call.key)
            call.cached = True
            return None
        amendment = requirement.proposed_execpolicy_amendment
        ladder = self._ladder(call.command, call.ctx, amendment) if amendment else None
        answered = await self._ask(replace(exec_question(
            call.command, call.cwd, requirement, self._matched_rules(call.command, call.ctx),
            notes=call.notes, asker=self.asker, ladder=ladder),
            justification=call.req.justification,
            sandbox_permissions=call.req.sandbox_permissions.value), call.person_only)  # fmt: skip
        call.answered_by = answered.by
        call.answers.append(answered)
        return self._apply_exec_answer(answered, requirement, call.key)

    async def _attempts(self, call: _Call) -> ExecResult:
        """The first attempt, then, while the sandbox denies it and the policy lets us ask,
        a retry with the narrowest grant that helps (at most MAX_ATTEMPTS in all)."""
        grant, attempts = call.first, list[AttemptInfo]()
        while True:
            began = time.monotonic()
            result = await self._attempt(call.command, call.cwd, call.req, grant, call.probe)
            if isinstance(result, ExecResult):  # the sandbox could not be built
                return replace(result, attempts=tuple(attempts), notes=tuple(call.notes))
            cls = result.classification
            attempts.append(AttemptInfo(result.sandboxed, cls.outcome, result.exit_code,
                                        grant.describe(), int((time.monotonic() - began) * 1000)))
            self._emit("attempt", sandboxed=result.sandboxed, outcome=cls.outcome.value,
                       exit_code=result.exit_code, permission=grant.describe(),
                       hosts=list(cls.hosts), paths=list(cls.paths))  # fmt: skip
            status = (Status.SANDBOX_ERROR if cls.outcome is Outcome.SANDBOX_ERROR
                      else Status.COMPLETED)  # fmt: skip
            reason = cls.reason if status is Status.SANDBOX_ERROR else cls.reason or None
            done = ExecResult(status, result.exit_code, result.stdout, result.stderr, reason,
                              tuple(attempts), tuple(call.notes))  # fmt: skip
            if (status is Status.SANDBOX_ERROR or not (result.sandboxed and cls.outcome.is_denial)
                    or len(attempts) >= MAX_ATTEMPTS):  # fmt: skip
                return done
            network = cls.outcome is Outcome.NETWORK_DENIED
            if not self._may_escalate(network):
                return done
            if network:
                host = cls.hosts[0]
                answered = await self._ask(
                    network_question(call.command, call.cwd, host, cls.reason, self.asker),
                    call.person_only)  # fmt: skip
                call.answered_by = answered.by
                call.answers.append(answered)
                stop = self._apply_network_answer(answered, host)
                if stop is not None:
                    return replace(stop, attempts=tuple(attempts), notes=tuple(call.notes))
                grant = replace(grant, hosts=(*grant.hosts, host))
                continue
            narrower = narrower_grant(grant, cls.paths, call.cwd, self.context.sandbox,
                                      self.writable_roots)  # fmt: skip
            if narrower is None and self.deny_read:
                return done  # deny_read: no retry without the sandbox, as in Codex
            retry = narrower or Grant(no_sandbox=True)
            one_shot = isinstance(call.requirement, NeedsApproval) and call.requirement.one_shot
            if not call.approved or one_shot:  # else the first yes covered it (C.6)
                answered = await self._ask(replace(escalation_question(
                    call.command, call.cwd, cls.reason, retry.extra_roots, retry.describe(),
                    self._matched_rules(call.command, call.ctx), self.asker),
                    justification=call.req.justification,
                    sandbox_permissions="require_escalated"), call.person_only)  # fmt: skip
                call.answered_by = answered.by
                call.answers.append(answered)
                answer = answered.answer
                if answer.decision is ReviewDecision.APPROVED_FOR_SESSION:
                    self.store.remember([call.key], answer.decision)
                if not answer.decision.approves:
                    aborted = answer.decision is ReviewDecision.ABORT
                    return replace(done, status=Status.ABORTED if aborted else Status.DENIED,
                                   reason=answered.refusal)  # fmt: skip
            grant = retry

    def _matched_rules(self, command: Sequence[str], ctx: ExecContext) -> tuple[MatchedRule, ...]:
        return matched_rules(self.policy.check_multiple(
            commands_for_exec_policy(command), make_fallback(ctx),
            resolve_host_executables=True))  # fmt: skip

    def _fail_closed(
        self, requirement: ExecApprovalRequirement, why: str
    ) -> ExecApprovalRequirement:
        if isinstance(requirement, Forbidden):
            return requirement
        if self.context.approval_policy.kind is ApprovalPolicyKind.NEVER:
            return Forbidden(
                f"{why}; approval policy is never, so the command cannot run without a sandbox"
            )
        if self.deny_read:
            return Forbidden(
                f"{why}; the admin's deny_read (requirements.toml) holds only inside the "
                "sandbox, so the command cannot run without one"
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

    async def _attempt(
        self,
        command: tuple[str, ...],
        cwd: str,
        req: ExecRequest,
        grant: Grant,
        probe: SandboxProbe | None,
    ) -> AttemptResult | ExecResult:
        timeout = req.timeout if req.timeout is not None else self.command_timeout
        if grant.no_sandbox:
            return await run_attempt(
                command, cwd=cwd, env=req.env, spec=None, timeout=timeout, stdin=req.stdin
            )
        fs = FsAccess(self.context.sandbox.value)
        network, proxy = self._egress.for_attempt(grant.hosts)
        try:
            spec: SandboxSpec = build_spec(
                fs,
                cwd,
                extra_roots=(*self.writable_roots, *grant.extra_roots),
                network=network,
                runtime_dir=runtime_dir(),
                deny_read=self.deny_read,
            )
        except SandboxSetupError as e:
            return ExecResult(Status.SANDBOX_ERROR, reason=str(e))
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

    # -- questions -----------------------------------------------------------------------
    async def _ask(self, request: ApprovalRequest, person_only: str | None = None) -> Answered:
        self._emit(
            "approval_request",
            id=request.id,
            kind=request.kind.value,
            command=list(request.command),
            reason=request.reason,
            choices=[c.id for c in request.choices],
        )
        answered = await self.stage.ask(request, self.approval_timeout, person_only=person_only)
        answer = answered.answer
        self._emit(
            "approval_decision",
            id=request.id,
            decision=answer.decision.value,
            network_action=answer.network_action.value if answer.network_action else None,
            answered_by=answered.by.value,
            source=answered.source,
        )
        return answered

    def _ladder(
        self, command: tuple[str, ...], ctx: ExecContext, amendment: Sequence[str]
    ) -> Callable[[], Sequence[Rung]]:
        def rungs() -> Sequence[Rung]:
            # deferred: replay's history readers (~36 ms), only once "don't ask again" is picked
            from shellgate.replay.ladder import history_index, ladder

            return ladder(command, amendment, self.policy, ctx, target=self.amendments_file,
                          history=history_index())  # fmt: skip

        return rungs

    # -- answers ------------------------------------------------------------------------
    def _apply_exec_answer(
        self, answered: Answered, requirement: NeedsApproval, key: str
    ) -> ExecResult | None:
        answer = answered.answer
        d = answer.decision
        if d is ReviewDecision.APPROVED_FOR_SESSION:
            self.store.remember([key], d)
        elif d is ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT:
            amendment = requirement.proposed_execpolicy_amendment
            if answer.rung is not None:
                self._amended(answer.rung.pattern, answer.rung.target,
                              amendments.allow_rung(answer.rung))  # fmt: skip
            elif amendment:
                self._amended(amendment, self.amendments_file,
                              amendments.allow_prefix(self.amendments_file, amendment))  # fmt: skip
        if d.approves:
            return None
        return ExecResult(
            Status.ABORTED if d is ReviewDecision.ABORT else Status.DENIED,
            reason=answered.refusal,
        )

    def _amended(self, pattern: Sequence[str], file: str, written: amendments.Written) -> None:
        # The live policy too, whatever the write did: the next identical command must not ask
        # (Codex only warns when the file cannot be written).
        self.policy.add_prefix_rule(list(pattern), Decision.ALLOW)
        if written.ok:
            self._emit("amendment", file=file, rule=written.line, written=written.added)
        else:
            self._emit("amendment_failed", file=file, error=written.failure)

    def _apply_network_answer(self, answered: Answered, host: str) -> ExecResult | None:
        answer = answered.answer
        d = answer.decision
        if d is ReviewDecision.APPROVED_FOR_SESSION:
            self.host_rules.allow.add(host)
        elif d is ReviewDecision.NETWORK_POLICY_AMENDMENT:
            action = answer.network_action or NetworkAction.ALLOW
            target = (
                self.host_rules.allow if action is NetworkAction.ALLOW else self.host_rules.deny
            )
            target.add(host)
            if amendments.network(self.amendments_file, host, action.value).ok:
                self._emit(
                    "network_amendment", file=self.amendments_file, host=host, action=action.value
                )
            if action is NetworkAction.DENY:
                return ExecResult(Status.DENIED, reason=f'network access to "{host}" denied')
            return None
        if d.approves:
            return None
        return ExecResult(
            Status.ABORTED if d is ReviewDecision.ABORT else Status.DENIED,
            reason=answered.refusal,
        )

