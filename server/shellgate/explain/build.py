"""The whole chain for one command, step by step, kept for people to read.

Decides exactly as approval.requirement does (the same functions, in the same order); the
warnings it adds are beyond Codex and never change a decision.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from shellgate.approval.beyond import beyond_codex
from shellgate.approval.context import ExecContext, FsSandboxKind
from shellgate.approval.defaults import SandboxOverride, sandbox_override_for_first_attempt
from shellgate.approval.fallback import Why, make_fallback, unmatched_verdict
from shellgate.approval.requirement import (
    ExecApprovalRequirement,
    Forbidden,
    commands_for_exec_policy,
    escalation_refusal,
    requirement_for_evaluation,
)
from shellgate.codexconfig.session import Session
from shellgate.codexconfig.trust import ProjectTrust
from shellgate.explain.model import (
    Danger,
    DecidedBy,
    Explanation,
    FirstAttempt,
    Heuristic,
    Parse,
    RuleHit,
    Segment,
    SplitDifference,
    Warning,
)
from shellgate.explain.warnings import collect_warnings
from shellgate.rules.decision import Decision
from shellgate.rules.policy import (
    Evaluation,
    HeuristicsRuleMatch,
    Policy,
    PrefixRuleMatch,
    RuleMatch,
)
from shellgate.shell import bash_reading
from shellgate.shell.dangerous import DangerKind, dangerous_command_match
from shellgate.shell.known_safe import is_known_safe_command
from shellgate.shell.programs import GitFiles
from shellgate.shell.quote import try_join
from shellgate.shell.split import extract_shell_script, try_parse_word_only_commands_sequence
from shellgate.shell.tsbash import read_split

_DEFAULT_CONTEXT = ExecContext()
_DANGER_NAMES = {DangerKind.FORCED_RM: Danger.FORCED_RM, DangerKind.OTHER: Danger.OTHER}


def _git_files(argv: Sequence[str], cwd: str | None) -> GitFiles | None:
    """git's configuration files for a command run in `cwd` that may run git (read lazily,
    only if a git command is met)."""
    if cwd is None or not any("git" in word.lower() for word in argv):
        return None
    from shellgate.shell.programs.git_files import git_files  # deferred: git's readers (~1 ms)

    return git_files(cwd, os.environ)


def explain(
    command: Sequence[str] | str,
    *,
    policy: Policy,
    context: ExecContext = _DEFAULT_CONTEXT,
    cwd: str | None = None,
    rules_files: Sequence[tuple[str, str]] = (),
    project: ProjectTrust | None = None,
    warnings: bool = True,
    session: Session | None = None,
) -> Explanation:
    """Explain `command` (an argv, or a script run as `bash -lc SCRIPT`) under `policy`.
    `warnings=False` leaves out what goes beyond Codex, the warnings and the split difference
    (replay decides thousands of commands and shows neither; the decision is the same).

    Raises ValueError for an empty argv (Codex never runs one); nothing else raises.
    """
    argv = ["bash", "-lc", command] if isinstance(command, str) else list(command)
    if not argv:
        raise ValueError("explain needs a command: the argv is empty")
    extracted = extract_shell_script(argv)
    # parse_shell_lc_plain_commands, without extracting the script a second time
    plain = None if extracted is None else try_parse_word_only_commands_sequence(extracted[1])
    commands = [list(c) for c in plain] if plain else commands_for_exec_policy(argv)

    verdicts: dict[tuple[str, ...], Heuristic] = {}
    approval, fs_kind, permissions = (
        context.approval_policy,
        context.fs_kind,
        context.sandbox_permissions,
    )

    def fallback(cmd: Sequence[str]) -> Decision:
        kind = dangerous_command_match(list(cmd))
        danger = None if kind is None else _DANGER_NAMES[kind]
        verdict = unmatched_verdict(approval, fs_kind, permissions, dangerous=danger is not None)
        verdicts[tuple(cmd)] = Heuristic(verdict.decision, danger, _why(verdict.why, context))
        return verdict.decision

    segments: list[Segment] = []
    matched: list[RuleMatch] = []
    for cmd in commands:
        evaluation = policy.check(cmd, fallback, resolve_host_executables=True)
        matched.extend(evaluation.matched_rules)
        hits = tuple(_hit(m) for m in evaluation.matched_rules if isinstance(m, PrefixRuleMatch))
        words = tuple(cmd)
        heuristic = None if hits else verdicts.get(words)
        segments.append(
            Segment(
                words,
                evaluation.decision or Decision.ALLOW,
                hits,
                heuristic,
                is_known_safe_command(cmd),
            )
        )

    requirement: ExecApprovalRequirement
    refused = escalation_refusal(context)
    if refused is not None:
        requirement, decision, decided_by = refused, None, DecidedBy.ESCALATION_CHECK
    else:
        overall = Evaluation(tuple(matched), Decision.strictest(m.decision for m in matched))
        requirement = requirement_for_evaluation(argv, commands, overall, context, policy, fallback)
        decision, decided_by = overall.decision, _decided_by(overall)

    first = _first_attempt(requirement, context)
    difference = None if extracted is None or not warnings else _split_difference(extracted[1])
    steps = tuple(segments)
    parse = Parse.PLAIN if plain else Parse.WHOLE

    gate = None
    if warnings:  # what ShellGate requires as the gate, judging every command bash runs
        git = _git_files(argv, cwd)
        gate = beyond_codex(argv, requirement, context, policy, make_fallback(context), git=git)

    def build(found: tuple[Warning, ...]) -> Explanation:
        # Built anew with the warnings rather than by dataclasses.replace: several times cheaper.
        return Explanation(
            command=tuple(argv),
            shell=extracted[0] if extracted else None,
            script=extracted[1] if extracted else None,
            cwd=cwd,
            context=context,
            parse=parse,
            segments=steps,
            decision=decision,
            decided_by=decided_by,
            requirement=requirement,
            first_attempt=first,
            warnings=found,
            rules_files=tuple(rules_files),
            project=project,
            split_difference=difference,
            session=session,
            gate=gate,
        )

    explanation = build(())
    return build(collect_warnings(explanation, policy)) if warnings else explanation


def _split_difference(script: str) -> SplitDifference | None:
    reading = read_split(script)
    if reading.objection is None or reading.codex is None:
        return None
    bash: tuple[str, ...] | None = None
    if reading.bash is not None:
        bash = tuple(try_join(list(c)) for c in reading.bash)
    elif bash_reading.enabled():  # bashlex is loaded already: bash's own grammar can tell
        words = bash_reading.bash_commands(script)
        bash = None if words is None else tuple(" ".join(c) for c in words)
    return SplitDifference(reading.codex, bash, reading.objection)


def _hit(m: PrefixRuleMatch) -> RuleHit:
    span = m.rule.span
    return RuleHit(
        matched_prefix=m.matched_prefix,
        decision=m.decision,
        justification=m.justification,
        path=span.path if span else None,
        line=span.line if span else None,
        column=span.column if span else None,
        layer=m.rule.layer,
        resolved_program=m.resolved_program,
    )


def _decided_by(evaluation: Evaluation) -> DecidedBy:
    # Only the matches as strict as the final decision decided it.
    rules = heuristics = False
    for m in evaluation.matched_rules:
        if m.decision is evaluation.decision:
            if isinstance(m, PrefixRuleMatch):
                rules = True
            elif isinstance(m, HeuristicsRuleMatch):
                heuristics = True
    if rules and heuristics:
        return DecidedBy.RULES_AND_HEURISTICS
    return DecidedBy.RULES if rules else DecidedBy.HEURISTICS


def _first_attempt(
    requirement: ExecApprovalRequirement, context: ExecContext
) -> FirstAttempt | None:
    if isinstance(requirement, Forbidden):
        return None
    override = sandbox_override_for_first_attempt(
        context.sandbox_permissions,
        requirement,
        fs_policy_has_denied_reads=context.fs_policy_has_denied_reads,
    )
    sandboxed = (
        context.fs_kind is FsSandboxKind.RESTRICTED and override is SandboxOverride.NO_OVERRIDE
    )
    return FirstAttempt(override, sandboxed)


def _why(why: Why, context: ExecContext) -> str:
    text = _WHY[why._value_]  # by value: an enum member's hash is Python code (Enum.__hash__)
    if "{" not in text:
        return text
    return text.format(
        policy=context.approval_policy.kind.value,
        perm=context.sandbox_permissions.value,
        sandbox=context.sandbox.value,
    )


_WHY = {
    Why.DANGEROUS_NEVER.value: "dangerous command, and approval policy never cannot ask: refused",
    Why.DANGEROUS_ASK.value: "dangerous command: {policy} asks rather than run it unseen",
    Why.NEVER_RELIES_ON_SANDBOX.value: (
        "no rule matched; {policy} never asks and relies on the sandbox"
    ),
    Why.UNTRUSTED_ASKS.value: (
        "no rule matched; untrusted asks about every command no allow rule covers"
    ),
    Why.OVERRIDE_ASKS.value: "no rule matched; it asks to leave the restricted sandbox ({perm})",
    Why.SANDBOX_BOUNDS_IT.value: (
        "no rule matched; not dangerous, so it runs in the sandbox without asking"
    ),
    Why.NO_CODEX_SANDBOX.value: (
        "no rule matched; no Codex sandbox to escape ({sandbox}): runs unasked"
    ),
}
