"""Who answers, for `explain`: the hooks Codex would run for the command (source, event,
command), the ones it skips and why, the reviewer, the person; with `--run-hooks`, the
PreToolUse and PermissionRequest hooks run and their answer (rules-schema/explain.schema.json
`answerers`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shellgate.answer.codex_hooks import HookSet, discover
from shellgate.answer.hooks import SessionHooks
from shellgate.answer.review_config import review_config
from shellgate.approval.answerers import (
    Answered,
    Before,
    HookNote,
    ToPerson,
    reviews,
    shell_script,
)
from shellgate.approval.context import ApprovalPolicyKind, ExecContext
from shellgate.approval.question import ApprovalRequest, RequestKind
from shellgate.approval.requirement import Forbidden, NeedsApproval
from shellgate.codexconfig.resolve import CodexConfig


@dataclass
class WhoAnswers:
    hooks: HookSet
    reviewer: dict[str, Any] | None = None  # model, provider, base_url, wire_api
    person: bool = True  # may a person be asked (not under `never`)
    warning: str | None = None  # the admin refused the reviewer (Codex's warning)
    ran: list[HookNote] = field(default_factory=list)
    decision: dict[str, Any] | None = None  # what the hooks decided, when they ran

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hooks": [{"event": h.event, "source": h.source, "path": h.path,
                       "matcher": h.matcher, "command": h.command, "timeout": h.timeout,
                       "async": h.is_async} for h in self.hooks.hooks if h.matches()],
            "skipped_hooks": [{"event": s.hook.event, "source": s.hook.source,
                               "path": s.hook.path, "command": s.hook.command, "why": s.why}
                              for s in self.hooks.skipped],
            "reviewer": self.reviewer,
            "person": self.person,
            "warning": self.warning,
        }  # fmt: skip
        if self.decision is not None:
            out["ran"] = [{"event": n.event, "source": n.source, "command": n.command,
                           "status": n.status, "text": n.text, "duration_ms": n.duration_ms}
                          for n in self.ran]  # fmt: skip
            out["decision"] = self.decision
        return out

    def render(self) -> str:
        """The section for explain's text; empty when only the rules and a person answer (no
        hook, no reviewer, nothing run): the trace says that already."""
        matching = [h for h in self.hooks.hooks if h.matches()]
        if (not matching and not self.hooks.skipped and not self.warning and self.reviewer is None
                and self.person and not self.ran and self.decision is None):  # fmt: skip
            return ""
        lines = ["who answers (Codex's order: PreToolUse hooks, rules, PermissionRequest hooks, "
                 "reviewer, person):"]  # fmt: skip
        if not matching:
            lines.append("  hooks: none Codex would run for this command")
        for h in matching:
            detached = " (async: its answer is ignored)" if h.is_async else ""
            lines.append(f"  hook {h.event} ({h.source}, {h.path}): `{h.command}`{detached}")
        for s in self.hooks.skipped:
            lines.append(f"  skipped hook {s.hook.event} ({s.hook.source}, {s.hook.path}): "
                         f"`{s.hook.command}`: {s.why}")  # fmt: skip
        if self.warning:
            lines.append(f"  reviewer: none: {self.warning}")
        elif self.reviewer is None:
            lines.append("  reviewer: none (approvals_reviewer is not auto_review, or the "
                         "policy puts questions to the person)")
        else:
            lines.append(f"  reviewer: {self.reviewer['model']} at "
                         f"{self.reviewer['base_url']} ({self.reviewer['wire_api']})")  # fmt: skip
        lines.append("  person: " + ("asked when a question is needed and nobody before "
                                     "answered" if self.person else "never asked (policy never)"))
        for n in self.ran:
            lines.append(f"  ran {n.event} ({n.source}) `{n.command}`: {n.status}"
                         + (f": {n.text}" if n.text else "") + f" [{n.duration_ms} ms]")
        if self.decision is not None:
            lines.append(f"  hooks' decision: {self.decision['outcome']}"
                         + (f": {self.decision['told']}" if self.decision.get("told") else ""))
        return "\n".join(lines) + "\n"


def run_pre(who: WhoAnswers, session: SessionHooks, script: str, cwd: str) -> Before:
    found = asyncio.run(session.pre_tool_use(script, cwd, "call_explain"))
    who.ran.extend(found.runs)
    if found.blocked is not None:
        who.decision = {"by": "hook", "outcome": "refused", "told": found.told(script)}
    elif found.ask is not None:
        who.decision = {"by": "person", "outcome": "asks you", "told": found.ask}
    elif found.command is not None:
        who.decision = {"by": "hook", "outcome": "rewritten", "command": found.command}
    else:
        who.decision = {"by": "rules", "outcome": "the rules decide"}
    return found


def run_permission(
    who: WhoAnswers, session: SessionHooks, argv: tuple[str, ...], cwd: str,
    justification: str | None, sandbox_permissions: str,
) -> None:  # fmt: skip
    request = ApprovalRequest("explain", RequestKind.EXEC, argv, cwd, None, (),
                              justification=justification,
                              sandbox_permissions=sandbox_permissions)  # fmt: skip
    found = asyncio.run(session.answer(request))
    who.ran.extend(n for n in session.notes if n.event == "PermissionRequest")
    if isinstance(found, Answered) and found.answer.decision.approves:
        who.decision = {"by": "hook", "outcome": "approved", "source": found.source}
    elif isinstance(found, Answered):
        who.decision = {"by": "hook", "outcome": "refused", "told": found.refusal,
                        "source": found.source}  # fmt: skip
    elif isinstance(found, ToPerson):
        who.decision = {"by": "person", "outcome": "asks you", "told": found.why}
    else:
        after = "the reviewer" if who.reviewer is not None else "you"
        who.decision = {"by": "reviewer" if who.reviewer else "person",
                        "outcome": f"no hook decided: {after}"}  # fmt: skip


def explain_answerers(
    chain: Callable[[list[str] | str], Any], target: list[str] | str, config: CodexConfig,
    context: ExecContext, cwd: str, *, run: bool, approve_for_me: bool = False,
) -> tuple[Any, WhoAnswers]:  # fmt: skip
    """The explanation of `target` (`chain` explains one command) and who answers. With
    `run`, the PreToolUse hooks run first: a rewrite is explained instead (Codex judges the
    new command), and a question goes to the PermissionRequest hooks."""
    projects = tuple(f.folder / ".codex" for f in config.trust.folders if f.trusted)
    hooks = discover(config.codex_home, config.requirements, system_dir=config.system_dir,
                     projects=projects)  # fmt: skip
    review = review_config(config.config_files, config.requirements,
                           approve_for_me=approve_for_me)  # fmt: skip
    who = WhoAnswers(hooks, person=context.approval_policy.kind is not ApprovalPolicyKind.NEVER,
                     reviewer=review.describe() if reviews(context.approval_policy) else None,
                     warning=review.warning)  # fmt: skip
    explanation = chain(target)
    if not run or not hooks:
        return explanation, who
    session = SessionHooks(hooks, str(config.codex_home),
                           never=context.approval_policy.kind is ApprovalPolicyKind.NEVER)
    script = target if isinstance(target, str) else shell_script(target)
    found = run_pre(who, session, script, cwd)
    if found.blocked is not None or found.ask is not None:
        return explanation, who
    if found.command is not None:
        script = found.command
        explanation = chain(script)
    req = explanation.requirement if explanation.gate is None else explanation.gate.requirement
    if isinstance(req, NeedsApproval) and who.person:
        run_permission(who, session, ("bash", "-lc", script), cwd, context.justification,
                       context.sandbox_permissions.value)  # fmt: skip
    elif isinstance(req, Forbidden):
        who.decision = {"by": "rules", "outcome": "forbidden", "told": req.reason}
    return explanation, who
