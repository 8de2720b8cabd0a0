"""Warnings beyond Codex: what the decision rests on that a person might not see.

None of these changes Codex's decision; they say where it may surprise (spec peers P1, P2):
commands hidden from the rules inside a form Codex does not look into, and "allow" meaning
"runs outside the sandbox".
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.approval.context import FsSandboxKind
from shellgate.approval.defaults import SandboxOverride
from shellgate.approval.requirement import Forbidden, NeedsApproval, Skip
from shellgate.explain.model import Explanation, Parse, Warning
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy, PrefixRuleMatch
from shellgate.shell.bash_runs import bash_runs
from shellgate.shell.quote import try_join
from shellgate.shell.wrappers import Concealment, hidden_commands


def collect_warnings(ex: Explanation, policy: Policy | None = None) -> tuple[Warning, ...]:
    out: list[Warning] = []
    out.extend(_hidden(ex, policy))
    if policy is not None:
        out.extend(_path_spelling(ex, policy))
    out.extend(_handed(ex, policy))
    out.extend(_gate(ex))
    out.extend(_unsandboxed(ex))
    out.extend(_known_safe_asked(ex))
    return tuple(out)


def _q(words: tuple[str, ...] | list[str]) -> str:
    joined: str = try_join(list(words))
    return joined


def _stricter_rule(
    policy: Policy | None, cmd: Sequence[str], than: Decision
) -> PrefixRuleMatch | None:
    """The strictest rule that would match `cmd` on its own, if stricter than `than`."""
    if policy is None or not cmd:
        return None
    best: PrefixRuleMatch | None = None
    for m in policy.matches_for(cmd, resolve_host_executables=True):
        if m.decision.rank > than.rank and (best is None or m.decision.rank > best.decision.rank):
            best = m
    return best


def _would(m: PrefixRuleMatch | None) -> str:
    if m is None:
        return ""
    span = m.rule.span
    where = f" ({span.path}:{span.line})" if span else ""
    return f"; on its own a rule would make it {m.decision.value}: `{_q(m.matched_prefix)}`{where}"


def _path_spelling(ex: Explanation, policy: Policy) -> list[Warning]:
    """`/tmp/git push` is not `git push` to Codex's rules (spec peers P2, openai/codex#37079)."""
    out: list[Warning] = []
    for i, seg in enumerate(ex.segments):
        program = seg.command[0] if seg.command else ""
        name = program.rsplit("/", 1)[-1]
        if "/" not in program or not name or seg.rules:
            continue
        m = _stricter_rule(policy, (name, *seg.command[1:]), seg.decision)
        if m is not None:
            out.append(
                Warning(
                    "path-spelling",
                    f"`{program}` is not `{name}` to Codex's rules (no host_executable lets it "
                    f"through){_would(m)}",
                    i,
                    (name, *seg.command[1:]),
                )
            )
    return out


def _hidden(ex: Explanation, policy: Policy | None) -> list[Warning]:
    out: list[Warning] = []
    # a script Codex splits but bash would not run so: `split_difference` says it all
    opaque = ex.parse is Parse.WHOLE and ex.script is not None and ex.split_difference is None
    for i, seg in enumerate(ex.segments):
        hidden = hidden_commands(list(seg.command))
        if not hidden and not opaque:
            continue
        if opaque:  # what bash runs at the script's top level, words as bash sees them
            runs = bash_runs(ex.script or "")
            inside = [r.words for r in runs if not r.via and r.words and r.unknowable is None]
            listed = ", ".join(f"`{_q(c)}`" for c in inside) or "nothing Codex can read"
            out.append(
                Warning(
                    "opaque-script",
                    "the script is not plain (a redirection, substitution, variable, heredoc or "
                    "the like), so Codex's rules see it as one command, not what runs inside: "
                    + listed,
                    i,
                )
            )
        for h in hidden:
            if h.concealment is Concealment.SCRIPT:
                continue
            inner = f"`{_q(h.command)}`" if h.command else "a command built at run time"
            text = {
                Concealment.WRAPPER: f"{inner} runs through `{h.via}`; the rules judge "
                f"`{h.via}`, not {inner}",
                Concealment.SHELL: f"{inner} runs as shell source through `{h.via}`, "
                "where the rules do not look",
                Concealment.SUBSTITUTION: f"{inner} runs inside a substitution `{h.via}`, "
                "where the rules do not look",
                Concealment.REDIRECTION: f"{inner} has its input or output redirected "
                f"(`{h.via} {h.detail}`); rules do not see redirections",
                Concealment.HEREDOC: f"{inner} reads a here-document (`{h.via}{h.detail}`); "
                "its contents are not checked",
            }[h.concealment]
            text += _would(_stricter_rule(policy, h.command, seg.decision))
            out.append(Warning(f"hidden-{h.concealment.value}", text, i, h.command or None))
    return out


def _gate(ex: Explanation) -> list[Warning]:
    """What ShellGate decides where it is the gate, when stricter than Codex (enforced)."""
    gate = ex.gate
    if gate is None:
        return []
    req = gate.requirement
    verdict = (
        "refuses it" if isinstance(req, Forbidden)
        else "runs it in the sandbox" if isinstance(req, Skip)
        else "asks first"
    )  # fmt: skip
    where = "(its hooks, MCP shell, shellgate run)"
    return [Warning("gate", f"ShellGate as the gate {where} {verdict}: {gate.reason}")]


def _handed(ex: Explanation, policy: Policy | None) -> list[Warning]:
    """Commands a program runs for bash (its options, configuration, environment, inline
    code: shell/programs), which Codex's rules never see."""
    from shellgate.approval.beyond import runs_of  # deferred: the gate's module, for a warning

    out: list[Warning] = []
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    for run in runs_of(list(ex.command)):
        h = run.handed
        if h is None or (h.program, h.how, run.words) in seen:
            continue
        seen.add((h.program, h.how, run.words))
        if run.unknowable is not None:
            text = (
                f"`{h.program}` runs something decided at run time ({h.how}): "
                f"{run.unknowable}; Codex's rules do not see it, ShellGate as the gate asks"
            )
        elif run.words:
            text = (
                f"`{h.program}` runs `{_q(run.words)}` ({h.how}); Codex's rules judge the "
                "outer command, not this one, which ShellGate as the gate judges on its own"
            )
            text += _would(_stricter_rule(policy, run.words, Decision.ALLOW))
        else:
            continue
        out.append(Warning("program-runs", text, None, run.words or None))
        if len(out) >= 20:
            break
    return out


def _unsandboxed(ex: Explanation) -> list[Warning]:
    first = ex.first_attempt
    if first is None or first.sandboxed:
        return []
    req = ex.requirement
    when = "once approved, " if isinstance(req, NeedsApproval) else ""
    if first.override is SandboxOverride.BYPASS_SANDBOX_FIRST_ATTEMPT:
        if isinstance(req, Skip) and req.bypass_sandbox:
            text = (
                "allow here means running outside the sandbox: every command was allowed by a "
                "rule, so it runs with your full permissions, files and network included"
            )
        else:
            text = (
                f"{when}it runs outside the sandbox (it asked for escalated permissions), "
                "with your full permissions"
            )
        return [Warning("runs-unsandboxed", text)]
    if ex.context.fs_kind is FsSandboxKind.UNRESTRICTED:
        return [Warning("runs-unsandboxed", f"{when}it runs unsandboxed: danger-full-access")]
    return [Warning("runs-unsandboxed", f"{when}it runs in an external sandbox, not Codex's")]


def _known_safe_asked(ex: Explanation) -> list[Warning]:
    if not isinstance(ex.requirement, NeedsApproval):
        return []
    return [
        Warning(
            "known-safe-asked",
            f"`{_q(seg.command)}` is read-only (known safe), yet Codex 0.169.0 asks about it "
            "under untrusted: an allow rule would stop the question",
            i,
        )
        for i, seg in enumerate(ex.segments)
        if seg.known_safe
        and seg.heuristic is not None
        and seg.heuristic.decision.value == "prompt"
        and ex.context.approval_policy.kind.value == "untrusted"
    ]
