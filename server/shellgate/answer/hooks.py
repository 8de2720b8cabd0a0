"""One session's Codex hooks: the stdin Codex sends (spec codex-hooks-chain.md §3), run
concurrently, their answers combined. `SessionHooks` is the stage's `CommandHooks`
(PreToolUse, PostToolUse) and its PermissionRequest `Answerer`."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from shellgate.answer.codex_hooks import HookSet
from shellgate.answer.hook_answers import combine_permission, combine_post, combine_pre
from shellgate.answer.hook_process import detach, run_all
from shellgate.approval.answerers import (
    After,
    Answered,
    AnsweredBy,
    Before,
    HookNote,
    ToPerson,
    shell_script,
)
from shellgate.approval.question import Answer, ApprovalRequest, RequestKind
from shellgate.approval.review import ReviewDecision


@dataclass
class SessionHooks:
    hooks: HookSet
    codex_home: str
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    turn_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    model: str = "shellgate"
    transcript_path: str | None = None
    never: bool = False  # approval `never`: permission_mode bypassPermissions
    env: Mapping[str, str] | None = None
    notes: list[HookNote] = field(default_factory=list)  # every run, for a trace

    def event(self, name: str, command: str, cwd: str, **extra: object) -> dict[str, object]:
        """Codex's stdin for one event (the same keys, in its order)."""
        out: dict[str, object] = {
            "session_id": self.session_id, "turn_id": self.turn_id,
            "transcript_path": self.transcript_path, "cwd": cwd, "hook_event_name": name,
            "model": self.model,
            "permission_mode": "bypassPermissions" if self.never else "default",
            "tool_name": "Bash", "tool_input": {"command": command},
        }  # fmt: skip
        out.update(extra)
        return out

    def _env(self) -> dict[str, str]:
        env = dict(os.environ if self.env is None else self.env)
        env["CODEX_HOME"] = self.codex_home  # the only CODEX* variable Codex passes (spec §2)
        return env

    def _detach(self, name: str, event: dict[str, object], cwd: str) -> None:
        """The event's `async = true` hooks: started, never waited for (Codex ignores their
        answers)."""
        if found := self.hooks.detached(name):
            detach(found, event, cwd, self._env())

    async def pre_tool_use(self, command: str, cwd: str, call_id: str) -> Before:
        event = self.event("PreToolUse", command, cwd, tool_use_id=call_id)
        self._detach("PreToolUse", event, cwd)
        hooks = self.hooks.for_event("PreToolUse")
        if not hooks:
            return Before()
        found = combine_pre(await run_all(hooks, event, cwd, self._env()))
        self.notes.extend(found.runs)
        return found

    async def post_tool_use(self, command: str, cwd: str, call_id: str, output: str) -> After:
        event = self.event("PostToolUse", command, cwd, tool_response=output,
                           tool_use_id=call_id)  # fmt: skip
        self._detach("PostToolUse", event, cwd)
        hooks = self.hooks.for_event("PostToolUse")
        if not hooks:
            return After()
        found = combine_post(await run_all(hooks, event, cwd, self._env()))
        self.notes.extend(found.runs)
        return found

    async def answer(self, request: ApprovalRequest) -> Answered | ToPerson | None:
        """PermissionRequest: allow (as the person's "yes" once), deny with its message, or
        nothing (the next answerer). A failed hook: only the person answers."""
        if request.kind is RequestKind.PATCH:
            return None
        tool_input: dict[str, object] = {"command": shell_script(request.command)}
        if request.justification:
            tool_input["description"] = request.justification
        event = self.event("PermissionRequest", shell_script(request.command), request.cwd)
        event["tool_input"] = tool_input
        self._detach("PermissionRequest", event, request.cwd)
        hooks = self.hooks.for_event("PermissionRequest")
        if not hooks:
            return None
        found = combine_permission(await run_all(hooks, event, request.cwd, self._env()))
        self.notes.extend(found.runs)
        if found.deny is not None:
            return Answered(Answer(ReviewDecision.DENIED), AnsweredBy.HOOK, found.source,
                            said=found.deny)  # fmt: skip
        if found.failed is not None:
            return ToPerson(found.failed)
        if found.allow:
            return Answered(Answer(ReviewDecision.APPROVED), AnsweredBy.HOOK, found.source)
        return None

