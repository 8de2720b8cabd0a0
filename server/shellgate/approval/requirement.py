"""From an evaluation to what happens next: skip, ask, or refuse (Codex's
`create_exec_approval_requirement_for_command`, as Codex 0.169.0 behaves at runtime: spec C.0,
C.2, C.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shellgate.approval.context import ApprovalPolicyKind, ExecContext
from shellgate.approval.fallback import is_dangerous, make_fallback
from shellgate.approval.review import ReviewDecision
from shellgate.rules.decision import Decision
from shellgate.rules.policy import (
    Evaluation,
    Fallback,
    HeuristicsRuleMatch,
    Policy,
    PrefixRuleMatch,
    RuleMatch,
)
from shellgate.shell.dangerous import DangerKind, dangerous_command_match
from shellgate.shell.quote import try_join  # light: the quoting alone, no parser
from shellgate.shell.split import parse_shell_lc_plain_commands

Amendment = tuple[str, ...]


@dataclass(frozen=True)
class Skip:
    """Run without asking; outside the sandbox only when every command was allowed by a rule."""

    bypass_sandbox: bool
    proposed_execpolicy_amendment: Amendment | None = None


@dataclass(frozen=True)
class NeedsApproval:
    """Ask first: Codex's reason and amendment to offer, or only a one-shot yes."""

    reason: str | None
    proposed_execpolicy_amendment: Amendment | None = None
    # Codex's NeedsOneShotApproval: only "yes, this once" or "cancel" (C.0 point 4).
    one_shot: bool = False

    @property
    def available_decisions(self) -> tuple[ReviewDecision, ...]:
        if self.one_shot or self.proposed_execpolicy_amendment is None:
            return (ReviewDecision.APPROVED, ReviewDecision.ABORT)
        return (
            ReviewDecision.APPROVED,
            ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT,
            ReviewDecision.ABORT,
        )


@dataclass(frozen=True)
class Forbidden:
    """Refused without asking, with Codex's reason."""

    reason: str


ExecApprovalRequirement = Skip | NeedsApproval | Forbidden


def requirement_type(requirement: ExecApprovalRequirement) -> str:
    if isinstance(requirement, Skip):
        return "skip"
    if isinstance(requirement, NeedsApproval):
        return "needs_approval"
    return "forbidden"


def requirement_to_json(requirement: ExecApprovalRequirement) -> dict[str, object]:
    """Codex's fields, as the conformance corpus and explain's JSON spell them."""
    out: dict[str, object] = {"type": requirement_type(requirement)}
    if isinstance(requirement, Skip):
        out["bypass_sandbox"] = requirement.bypass_sandbox
    else:
        out["reason"] = requirement.reason
    if not isinstance(requirement, Forbidden):
        amendment = requirement.proposed_execpolicy_amendment
        out["proposed_execpolicy_amendment"] = None if amendment is None else list(amendment)
    return out

# A model-requested prefix_rule equal to one of these is never proposed: it would allow far
# more than the command at hand (spec C.4).
BANNED_PREFIX_SUGGESTIONS: frozenset[tuple[str, ...]] = frozenset(
    tuple(s.split(" "))
    for s in (
        "python3", "python3 -", "python3 -c", "python", "python -", "python -c", "py", "py -3",
        "pythonw", "pyw", "pypy", "pypy3", "git", "bash", "bash -lc", "sh", "sh -c", "sh -lc",
        "zsh", "zsh -lc", "/bin/zsh", "/bin/zsh -lc", "/bin/bash", "/bin/bash -lc", "pwsh",
        "pwsh -Command", "pwsh -c", "powershell", "powershell -Command", "powershell -c",
        "powershell.exe", "powershell.exe -Command", "powershell.exe -c", "env", "sudo",
        "node", "node -e", "perl", "perl -e", "ruby", "ruby -e", "php", "php -r", "lua",
        "lua -e", "osascript",
    )
)  # fmt: skip

NEVER_REJECTION = "approval required by policy, but AskForApproval is set to Never"
RULES_REJECTION = "approval required by policy rule, but AskForApproval::Granular.rules is false"
FORCED_RM_REASON = "rm -f style commands are not permitted. Use a safer approach"
SANDBOX_REJECTION = (
    "approval required by policy, but AskForApproval::Granular.sandbox_approval is false"
)


def escalation_refusal(context: ExecContext) -> Forbidden | None:
    """C.2 step 0: an escalation the policy could never ask about is refused before the rules."""
    if not context.sandbox_permissions.requires_escalated:
        return None
    policy = context.approval_policy
    if policy.kind is ApprovalPolicyKind.NEVER or not policy.allows_sandbox_approval():
        p = policy.debug()
        return Forbidden(
            f"approval policy is {p}; reject command — "
            f"you cannot ask for escalated permissions if the approval policy is {p}"
        )
    return None


def prompt_is_rejected_by_policy(context: ExecContext, *, prompt_is_rule: bool) -> str | None:
    """Why a question cannot be asked under this policy, or None when it can."""
    policy = context.approval_policy
    if policy.kind is ApprovalPolicyKind.NEVER:
        return NEVER_REJECTION
    if policy.granular is not None:
        if prompt_is_rule and not policy.granular.rules:
            return RULES_REJECTION
        if not prompt_is_rule and not policy.granular.sandbox_approval:
            return SANDBOX_REJECTION
    return None


def commands_for_exec_policy(argv: Sequence[str]) -> list[list[str]]:
    """The commands a policy sees: a plain `bash -lc` script's commands, else the whole argv."""
    commands = parse_shell_lc_plain_commands(list(argv))
    if commands:
        return [list(c) for c in commands]
    return [list(argv)]


def create_exec_approval_requirement(
    argv: Sequence[str], context: ExecContext, policy: Policy
) -> ExecApprovalRequirement:
    """The whole chain for one exec call."""
    refused = escalation_refusal(context)
    if refused is not None:
        return refused
    commands = commands_for_exec_policy(argv)
    fallback = make_fallback(context)
    evaluation = policy.check_multiple(commands, fallback, resolve_host_executables=True)
    return requirement_for_evaluation(argv, commands, evaluation, context, policy, fallback)


def requirement_for_evaluation(
    argv: Sequence[str],
    commands: Sequence[Sequence[str]],
    evaluation: Evaluation,
    context: ExecContext,
    policy: Policy,
    fallback: Fallback,
) -> ExecApprovalRequirement:
    matches = evaluation.matched_rules
    decision = evaluation.decision
    if decision is Decision.FORBIDDEN:
        return Forbidden(_forbidden_reason(argv, matches))
    if decision is Decision.PROMPT:
        prompt_is_rule = any(
            isinstance(m, PrefixRuleMatch) and m.decision is Decision.PROMPT for m in matches
        )
        rejection = prompt_is_rejected_by_policy(context, prompt_is_rule=prompt_is_rule)
        if rejection is not None:
            if rejection == SANDBOX_REJECTION and _heuristic_prompt_is_dangerous(matches):
                # C.0 point 4: 0.169.0 still asks, once, instead of refusing.
                return NeedsApproval(None, None, one_shot=True)
            return Forbidden(rejection)
        amendment = _requested_amendment(context, matches, commands, policy, fallback)
        if amendment is None:
            amendment = _prompt_amendment(matches)
        return NeedsApproval(_prompt_reason(argv, matches, context), _offerable(amendment))
    # Allow (a fallback always decides, so None cannot come from the chain; treat it as allow
    # by heuristics, which never bypasses the sandbox).
    bypass = bool(matches) and all(
        isinstance(m, PrefixRuleMatch) and m.decision is Decision.ALLOW for m in matches
    )
    return Skip(bypass, _offerable(_allow_amendment(matches)))


def _offerable(amendment: Amendment | None) -> Amendment | None:
    """None for a prefix with an empty or blank word: 0.169.0 offers `prefix_rule(pattern=[""])`
    for `''`, a rule no one means (newer upstream refuses such words before writing them)."""
    if amendment is None or any(not word.strip() for word in amendment):
        return None
    return amendment


def _join(words: Sequence[str]) -> str:
    joined: str = try_join(list(words))
    return joined


def _longest(matches: Sequence[RuleMatch], decision: Decision) -> PrefixRuleMatch | None:
    """Rust's `max_by_key` on the matched prefix length: the last one wins ties."""
    best: PrefixRuleMatch | None = None
    for m in matches:
        if (
            isinstance(m, PrefixRuleMatch)
            and m.decision is decision
            and (best is None or len(m.matched_prefix) >= len(best.matched_prefix))
        ):
            best = m
    return best


def _forbidden_reason(argv: Sequence[str], matches: Sequence[RuleMatch]) -> str:
    cmd = _join(argv)
    rule = _longest(matches, Decision.FORBIDDEN)
    if rule is not None:
        if rule.justification is not None:
            return f"`{cmd}` rejected: {rule.justification}"
        prefix = _join(rule.matched_prefix)
        return f"`{cmd}` rejected: policy forbids commands starting with `{prefix}`"

    for m in matches:
        if isinstance(m, HeuristicsRuleMatch) and m.decision is Decision.FORBIDDEN:
            if dangerous_command_match(list(m.command)) is DangerKind.FORCED_RM:
                return f"`{cmd}` rejected: {FORCED_RM_REASON}"
            break
    return f"`{cmd}` rejected: blocked by policy"


def _prompt_reason(
    argv: Sequence[str], matches: Sequence[RuleMatch], context: ExecContext
) -> str | None:
    rule = _longest(matches, Decision.PROMPT)
    if rule is not None:
        cmd = _join(argv)
        if rule.justification is not None:
            return f"`{cmd}` requires approval: {rule.justification}"
        return f"`{cmd}` requires approval by policy"
    if context.sandbox_permissions.requires_escalated:
        return context.justification
    return None


def _heuristic_prompt_is_dangerous(matches: Sequence[RuleMatch]) -> bool:

    return any(
        isinstance(m, HeuristicsRuleMatch)
        and m.decision is Decision.PROMPT
        and is_dangerous(m.command)
        for m in matches
    )


def _requested_amendment(
    context: ExecContext,
    matches: Sequence[RuleMatch],
    commands: Sequence[Sequence[str]],
    policy: Policy,
    fallback: Fallback,
) -> Amendment | None:
    """The model's requested prefix_rule, when it is safe and would cover every command."""
    prefix = context.prefix_rule
    if not prefix or tuple(prefix) in BANNED_PREFIX_SUGGESTIONS:
        return None
    if any(isinstance(m, PrefixRuleMatch) for m in matches):
        return None
    # No existing rule matched any command, so the policy plus this rule decides each command
    # exactly as a policy holding only this rule (and the same host executables) does.
    trial = Policy(host_executables=policy.host_executables)
    trial.add_prefix_rule(prefix, Decision.ALLOW)
    for cmd in commands:
        if trial.check(cmd, fallback, resolve_host_executables=True).decision is not Decision.ALLOW:
            return None
    return tuple(prefix)


def _prompt_amendment(matches: Sequence[RuleMatch]) -> Amendment | None:
    if any(isinstance(m, PrefixRuleMatch) and m.decision is Decision.PROMPT for m in matches):
        return None
    for m in matches:
        if isinstance(m, HeuristicsRuleMatch) and m.decision is Decision.PROMPT:
            return m.command
    return None


def _allow_amendment(matches: Sequence[RuleMatch]) -> Amendment | None:
    if any(isinstance(m, PrefixRuleMatch) for m in matches):
        return None
    for m in matches:
        if isinstance(m, HeuristicsRuleMatch) and m.decision is Decision.ALLOW:
            return m.command
    return None
