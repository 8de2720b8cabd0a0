"""What ShellGate requires as the gate, beyond Codex: every command bash runs, judged.

Codex's rules judge a plain script's commands or the whole argv; `\\rm -rf x`, `sh -c 'git
push'`, `timeout 5 rm x` and `echo 'rm x' | bash` reach them as something else
(`shell.bash_runs` lists what bash executes). Wherever ShellGate is the gate (every hook, the
MCP `shell` tool, the orchestrator's runs), each command bash runs is evaluated against the
same policy with Codex's own fallback, and the strictest verdict stands together with Codex's:

- a run a rule forbids (or Codex's heuristics would refuse) -> Forbidden;
- a run needing approval -> NeedsApproval, with the inner command's reason and amendment;
- a run bash decides at run time (`$CMD`, `r*`, an alias, a script piped in that is not
  literal, text tree-sitter cannot read) -> NeedsApproval, reason `UNKNOWABLE`;
- a run whose argument bash decides at run time, where a stricter rule for a longer command
  could match (`git $SUB` with `git push` forbidden) -> NeedsApproval, reason `UNKNOWABLE`;
- a command a program runs for bash (`git -c alias.x='!rm -rf b' x`, `tar --to-command=CMD`,
  `awk 'BEGIN {system("CMD")}'`, `BASH_ENV=./x.sh bash -c true`: `shell.programs`) is judged
  as one of these runs; the reason names the program and how (``git runs `rm -rf b` (alias
  `x`, set by -c)``). One from git's configuration files only ever makes it stricter by a
  rule or Codex's danger check, never by the approval policy's question for an unmatched
  command, and never moves a command into the sandbox.

A rule that allows an inner command never loosens the outer decision (strictest wins).
`check`'s output and explain's Codex lines stay Codex's: explain shows this as a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shellgate.approval.context import ExecContext
from shellgate.approval.fallback import is_dangerous, make_fallback
from shellgate.approval.requirement import (
    ExecApprovalRequirement,
    Forbidden,
    NeedsApproval,
    Skip,
    create_exec_approval_requirement,
    prompt_is_rejected_by_policy,
    requirement_for_evaluation,
)
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Fallback, Policy
from shellgate.rules.rule import PrefixRule
from shellgate.shell.bash_runs import UNKNOWABLE, Run, argv_runs, bash_runs, runs_arguments
from shellgate.shell.paths import executable_name_lookup_key
from shellgate.shell.programs import GitFiles
from shellgate.shell.quote import try_join
from shellgate.shell.split import extract_shell_script
from shellgate.shell.tsbash import read_split

__all__ = ["UNKNOWABLE", "Beyond", "beyond_codex", "gate_requirement", "runs_of"]


@dataclass(frozen=True)
class Beyond:
    """ShellGate's requirement where it is stricter than Codex's, the run that made it so, and
    why. A `Skip` here is Codex's without the sandbox bypass: every command Codex judged is
    allowed by a rule, but one that bash runs inside is allowed by none (`find . -exec rm {} +`
    with `find` allowed), so it runs in the sandbox rather than outside it."""

    requirement: ExecApprovalRequirement
    run: Run
    reason: str


def runs_of(argv: Sequence[str], git: GitFiles | None = None) -> tuple[Run, ...]:
    """What bash executes for `argv`: a `bash -lc SCRIPT`'s commands (the shell itself is
    Codex's to judge), else the argv and whatever it runs (`git`: git's configuration files
    for the directory it runs in, `shell.programs.git_files`)."""
    extracted = extract_shell_script(argv)
    return bash_runs(extracted[1], git) if extracted is not None else argv_runs(argv, git)


def gate_requirement(
    argv: Sequence[str], context: ExecContext, policy: Policy, git: GitFiles | None = None
) -> ExecApprovalRequirement:
    """Codex's requirement for `argv`, made stricter by what bash runs (see the module)."""
    codex = create_exec_approval_requirement(argv, context, policy)
    beyond = beyond_codex(argv, codex, context, policy, git=git)
    return codex if beyond is None else beyond.requirement


def beyond_codex(
    argv: Sequence[str],
    codex: ExecApprovalRequirement,
    context: ExecContext,
    policy: Policy,
    fallback: Fallback | None = None,
    git: GitFiles | None = None,
) -> Beyond | None:
    """The stricter requirement the commands bash runs impose, or None when Codex's stands."""
    if isinstance(codex, Forbidden):
        return None
    extracted = extract_shell_script(argv)
    if extracted is not None:  # most scripts: plain commands Codex judged, none running more
        plain = read_split(extracted[1]).commands
        if plain and not any(runs_arguments(c[0]) for c in plain):
            return None
    floor = 1 if isinstance(codex, NeedsApproval) else 0
    judge = make_fallback(context) if fallback is None else fallback
    best: Beyond | None = None
    bypass = isinstance(codex, Skip) and codex.bypass_sandbox
    for run in runs_of(argv, git):
        found = _judge(run, context, policy, judge)
        if found is None:
            unruled = not policy.matches_for(run.words, resolve_host_executables=True)
            configured = run.handed is not None and run.handed.configured
            if bypass and best is None and unruled and not configured and isinstance(codex, Skip):
                why = (
                    f"{_runs(run)}, which no rule allows: it runs in the sandbox, not outside it"
                )
                best = Beyond(Skip(False, codex.proposed_execpolicy_amendment), run, why)
            continue
        rank = 2 if isinstance(found.requirement, Forbidden) else 1
        if rank > floor:
            best, floor = found, rank
            if rank == 2:
                break
    return best


def _judge(run: Run, context: ExecContext, policy: Policy, fallback: Fallback) -> Beyond | None:
    """One run's requirement, unless it runs unasked."""
    if run.unknowable is not None:
        return _unknowable(run, f"{UNKNOWABLE}: {run.unknowable}{_via(run)}", context)
    words = list(run.words)
    configured = run.handed is not None and run.handed.configured
    unruled = configured and not policy.matches_for(words, resolve_host_executables=True)
    if unruled and not is_dangerous(words):  # a user's `core.pager = less`: no rule, no danger
        return None
    evaluation = policy.check(words, fallback, resolve_host_executables=True)
    decision = evaluation.decision or Decision.ALLOW
    rule = _could_match(policy, run, decision)
    if rule is not None:
        i = min(run.dynamic) if run.dynamic else len(words)
        word = f"`{words[i]}`" if i < len(words) else "the words it is given"
        pattern = " ".join([rule.first, *("|".join(alts) for alts in rule.rest)])
        why = (
            f"{UNKNOWABLE}: `{_join(words)}`{_via(run)}, where bash decides {word} at run "
            f"time, may be `{pattern}`, which a rule makes {rule.decision.value}"
        )
        return _unknowable(run, why, context)
    if decision is Decision.ALLOW:
        return None
    inner = requirement_for_evaluation(words, [words], evaluation, context, policy, fallback)
    if isinstance(inner, Skip):
        return None
    dangerous = "a dangerous command, asked rather than run unseen"
    said = inner.reason or (dangerous if is_dangerous(words) else "it needs approval on its own")
    if said.startswith(f"`{_join(words)}` "):
        said = said[len(_join(words)) + 3 :]
    reason = f"{_runs(run)}: {said}"
    if isinstance(inner, Forbidden):
        return Beyond(Forbidden(reason), run, reason)
    amendment = inner.proposed_execpolicy_amendment
    return Beyond(NeedsApproval(reason, amendment, inner.one_shot), run, reason)


def _unknowable(run: Run, reason: str, context: ExecContext) -> Beyond:
    rejection = prompt_is_rejected_by_policy(context, prompt_is_rule=False)
    if rejection is not None:
        return Beyond(Forbidden(f"{reason}; {rejection}"), run, f"{reason}; {rejection}")
    return Beyond(NeedsApproval(reason), run, reason)


def _could_match(policy: Policy, run: Run, decided: Decision) -> PrefixRule | None:
    """A rule stricter than `decided` that the run could meet once bash has decided its
    run-time words: one longer than the words before the first of them, agreeing with those."""
    if not run.dynamic and not run.open_tail:
        return None
    words = run.words
    known = min(run.dynamic) if run.dynamic else len(words)
    names = {words[0], executable_name_lookup_key(words[0]) or words[0]}
    best: PrefixRule | None = None
    for name in names:
        for rule in policy.rules_for(name):
            if len(rule) <= known or rule.decision.rank <= decided.rank:
                continue
            agrees = all(words[k] in rule.rest[k - 1] for k in range(1, known))
            if agrees and (best is None or rule.decision.rank > best.decision.rank):
                best = rule
    return best


def _via(run: Run) -> str:
    return f" (through {' > '.join(f'`{v}`' for v in run.via)})" if run.via else ""


def _runs(run: Run) -> str:
    """``bash runs `CMD` (through …)``, or for a command a program runs for bash, ``git runs
    `CMD` (alias `x`, set by -c)``."""
    if run.handed is None:
        return f"bash runs `{_join(run.words)}`{_via(run)}"
    h = run.handed
    label = f"{h.program}: {h.how}"
    outer = run.via[: run.via.index(label)] if label in run.via else ()
    through = f" (through {' > '.join(f'`{v}`' for v in outer)})" if outer else ""
    return f"{h.program} runs `{_join(run.words)}` ({h.how}){through}"


def _join(words: Sequence[str]) -> str:
    joined: str = try_join(list(words))
    return joined
