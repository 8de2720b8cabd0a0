"""The embedded agent in the editor: LSP commands to start a task and to cancel it.

`shellgate.agent.start` — one object `{task, threadId?, cwd?, modelUrl?, model?, wireApi?,
apiKeyEnv?, approvalPolicy?, sandbox?, maxTurns?, budgetSeconds?, stream?, transcript?}`.
Runs one user message to its end and returns `{threadId, turnId, status, finalText, message,
modelCalls, transcript}`. Pass the `threadId` back to continue the conversation, e.g. with the
user's words after "No, and tell the agent what to do differently" (status `aborted`): the model
is then told, as Codex does, that the previous turn was interrupted.
`shellgate.agent.cancel` — `{threadId?}` (none: every running task): returns `{cancelled}`.

While a task runs: a cancellable work-done progress (Cancel = interrupt: the model stream is
closed and the sandboxed process group killed); every agent event as the notification
`shellgate/agent/event {threadId, method, params}` in Codex's app-server vocabulary
(`item/agentMessage/delta`, `item/commandExecution/outputDelta`, `item/completed`, ...);
approvals through the editor approver (`shellgate/approve`, or `window/showMessageRequest`).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest

from shellgate.agent.config import AgentConfig, WireApi
from shellgate.agent.events import Transcript, default_transcript_path, fanout
from shellgate.agent.loop import AgentSession
from shellgate.agent.orchestrated import OrchestratedRunner
from shellgate.agent.runner import CommandRequest, CommandResult, OnOutput, Outcome
from shellgate.answer.review_client import Provider
from shellgate.answer.stage import answer_stage, configured_review, reviewer_for
from shellgate.answer.transcripts import from_history
from shellgate.approval.cache import ApprovalStore
from shellgate.codexconfig import codex_home
from shellgate.exec.network import HostRules
from shellgate.exec.orchestrator import Orchestrator
from shellgate.lsp.approvals import EditorApprover
from shellgate.lsp.broker import to_history
from shellgate.lsp.tracing import context_for
from shellgate.rules.errors import RulesError

if TYPE_CHECKING:  # the rest loads with the first task: the server starts without httpx
    from shellgate.agent.model import ModelClient
    from shellgate.agent.orchestrated import OrchestratedRunner
    from shellgate.approval.cache import ApprovalStore
    from shellgate.approval.context import ExecContext
    from shellgate.approval.question import Answer, ApprovalRequest, Approver
    from shellgate.exec.network import HostRules
    from shellgate.lsp.server import ShellGateServer
    from shellgate.rules.policy import Policy

START = "shellgate.agent.start"
CANCEL = "shellgate.agent.cancel"
EVENT = "shellgate/agent/event"
# The model request bodies carry the whole history: the transcript keeps them, the editor
# does not need them streamed.
NOT_STREAMED = {"model/request"}


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _arg(args: Any) -> Any:
    return args[0] if isinstance(args, list) and args else args


@dataclass(frozen=True)
class StartParams:
    task: str
    thread_id: str | None
    cwd: str | None
    config: AgentConfig
    approval_policy: str | None
    sandbox: str | None
    transcript: str | None


def parse_start(args: Any) -> StartParams:
    arg = _arg(args)
    task = _field(arg, "task")
    if not isinstance(task, str) or not task.strip():
        raise JsonRpcInvalidParams(f"{START} needs {{task: a non-empty string}}")
    base = AgentConfig()
    try:
        config = AgentConfig(
            model_url=_str(arg, "modelUrl") or base.model_url,
            model=_str(arg, "model") or base.model,
            wire_api=WireApi.parse(_str(arg, "wireApi") or base.wire_api.value),
            api_key_env=_str(arg, "apiKeyEnv") or base.api_key_env,
            stream=_field(arg, "stream") is not False,
            max_turns=_positive(arg, "maxTurns", base.max_turns),
            budget_s=_positive(arg, "budgetSeconds", base.budget_s),
        )
    except ValueError as exc:
        raise JsonRpcInvalidParams(f"{START}: {exc}") from None
    return StartParams(
        task,
        _str(arg, "threadId"),
        _str(arg, "cwd"),
        config,
        _str(arg, "approvalPolicy"),
        _str(arg, "sandbox"),
        _str(arg, "transcript"),
    )


def _str(arg: Any, name: str) -> str | None:
    value = _field(arg, name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise JsonRpcInvalidParams(f"{START}: `{name}` must be a string")
    return value or None


def _positive(arg: Any, name: str, default: Any) -> Any:
    value = _field(arg, name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"`{name}` must be a positive number")
    return type(default)(value)


@dataclass
class _Progress:
    """Reports what the agent waits for on the task's progress (approval, command)."""

    server: ShellGateServer
    token: str | None
    last: str = ""

    def report(self, message: str) -> None:
        if self.token is not None and message != self.last:
            self.last = message
            self.server.work_done_progress.report(
                self.token, T.WorkDoneProgressReport(message=message[:200])
            )


@dataclass
class _ReportingApprover:
    inner: Approver
    progress: _Progress | None = None

    async def request_approval(self, request: ApprovalRequest) -> Answer:
        if self.progress is not None:
            self.progress.report(f"approval: {request.command[-1]}")
        return await self.inner.request_approval(request)


@dataclass
class _Thread:
    session: AgentSession
    client: ModelClient
    approver: _ReportingApprover
    transcript: Transcript
    context: ExecContext
    codex_home: str
    store: ApprovalStore  # "for this session" approvals last as long as the thread
    hosts: HostRules
    reviewer: Any = None  # Codex's auto-reviewer on the thread's own model, when Codex's config
    # turns it on: one conversation per thread


def register(server: ShellGateServer) -> None:
    threads: dict[str, _Thread] = {}

    def new_thread(ls: ShellGateServer, params: StartParams) -> _Thread:
        # deferred: the model clients (~40-60 ms after the server) until the agent starts
        from shellgate.agent.factory import make_model_client

        try:
            context = context_for(ls.session.settings, params.approval_policy, params.sandbox)
        except ValueError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        cwd = params.cwd or (str(ls.session.roots[0]) if ls.session.roots else os.getcwd())
        if not os.path.isdir(cwd):
            raise JsonRpcInvalidParams(f"{START}: cwd {cwd} is not a directory")
        home = str(ls.session.settings.codex_home or codex_home())
        approver = _ReportingApprover(
            EditorApprover(
                ls, amendments_file=os.path.join(home, "rules", "default.rules"), timeout=300.0
            )
        )
        client = make_model_client(params.config)
        # The runner and the sink are replaced before every turn.
        session = AgentSession(client, _NoRunner(), params.config, cwd, lambda m, p: None)
        path = (
            Path(params.transcript)
            if params.transcript
            else default_transcript_path(session.thread_id)
        )
        transcript = Transcript(path)
        transcript("thread/started", {"thread": {"id": session.thread_id, "cwd": cwd}})
        config = params.config
        try:
            review = configured_review(cwd, Path(home), provider=Provider(
                config.model, config.model_url, config.wire_api.value, config.api_key_env))
            reviewer = reviewer_for(
                review, context.approval_policy, transcript=lambda: from_history(session.history),
                sandbox=context.sandbox.value,
                on_verdict=to_history(ls, "shellgate", session.thread_id))
        except RulesError as exc:
            raise JsonRpcInvalidParams(f"{START}: {exc}") from None
        return _Thread(
            session, client, approver, transcript, context, home, ApprovalStore(), HostRules(),
            reviewer,
        )  # fmt: skip

    def runner_for(ls: ShellGateServer, thread: _Thread, policy: Policy) -> OrchestratedRunner:
        def on_orchestrator_event(event: Any) -> None:
            if event.get("event") in ("amendment", "network_amendment"):
                ls.session.rules_changed()  # the rules on disk changed: re-read them

        # Codex's hooks (the admin's and the user's trusted ones), then the dialog; a broken
        # configuration already stopped the rules from loading
        if thread.reviewer is not None:
            thread.reviewer.new_turn()  # the circuit breaker counts denials in a turn
        stage = answer_stage(thread.approver, codex_home=Path(thread.codex_home),
                             cwd=thread.session.cwd,
                             approval=thread.context.approval_policy,
                             reviewer=thread.reviewer)  # fmt: skip
        return OrchestratedRunner(
            Orchestrator(
                policy,
                thread.approver,
                thread.context,
                codex_home=thread.codex_home,
                store=thread.store,
                host_rules=thread.hosts,
                on_event=on_orchestrator_event,
                asker="the agent",
                answerers=stage,
                originator="editor-agent",
            )
        )

    # pygls reads the handlers' annotations at run time: `ls` is a ShellGateServer.
    @server.command(START)
    async def start(ls: Any, args: Any) -> dict[str, Any]:
        params = parse_start(args)
        if params.thread_id is not None:
            thread = threads.get(params.thread_id)
            if thread is None:
                raise JsonRpcInvalidParams(f"{START}: unknown threadId {params.thread_id}")
        else:
            thread = new_thread(ls, params)
            threads[thread.session.thread_id] = thread
        session = thread.session
        if session.running:
            raise JsonRpcInvalidRequest(f"thread {session.thread_id} is already running a task")
        merged = await ls.session.running_async()  # the rules on disk, never editor buffers
        if merged.broken:  # never run an agent on a half-read policy
            _, err = merged.broken[0]
            raise JsonRpcInvalidRequest(f"the rules do not load, nothing will run: {err}")
        session.runner = runner_for(ls, thread, merged.policy)

        token = await _begin_progress(ls, params.task)
        progress = _Progress(ls, token)
        thread.approver.progress = progress
        loop = asyncio.get_running_loop()
        if token is not None:
            ls.work_done_progress.tokens[token].add_done_callback(
                lambda f: loop.call_soon_threadsafe(session.cancel) if f.cancelled() else None
            )

        def to_client(method: str, p: dict[str, Any]) -> None:
            if method in NOT_STREAMED:
                return
            ls.protocol.notify(
                EVENT, {"threadId": session.thread_id, "method": method, "params": p}
            )
            item = p.get("item") or {}
            if method == "item/started" and item.get("type") == "commandExecution":
                progress.report(f"running: {item['command']}")
            elif method == "item/agentMessage/delta":
                progress.report("model: writing")

        turn_ids: list[str] = []

        def note_turn(method: str, p: dict[str, Any]) -> None:
            if method == "turn/started":
                turn_ids.append(p["turn"]["id"])

        session.sink = fanout(thread.transcript, to_client, note_turn)
        end = "interrupted"
        try:
            result = await session.run_turn(params.task)
            end = result.status.value + (f": {result.message}" if result.message else "")
        finally:
            session.sink = thread.transcript
            thread.approver.progress = None
            if token is not None:
                ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message=end[:200]))
                ls.work_done_progress.tokens.pop(token, None)
        return {
            "threadId": session.thread_id,
            "turnId": turn_ids[-1] if turn_ids else None,
            "status": result.status.value,
            "finalText": result.final_text,
            "message": result.message,
            "modelCalls": result.model_calls,
            "transcript": str(thread.transcript.path),
        }

    @server.command(CANCEL)
    def cancel(ls: Any, args: Any) -> dict[str, Any]:
        thread_id = _field(_arg(args), "threadId") if args else None
        targets = (
            [threads[thread_id]]
            if thread_id in threads
            else ([] if thread_id else list(threads.values()))
        )
        cancelled = [t.session.cancel() for t in targets]
        return {"cancelled": any(cancelled)}


async def _begin_progress(ls: ShellGateServer, task: str) -> str | None:
    caps = ls.client_capabilities
    window = getattr(caps, "window", None)
    if not getattr(window, "work_done_progress", False):
        return None
    token = f"shellgate-agent-{uuid.uuid4().hex[:12]}"
    await ls.work_done_progress.create_async(token)
    ls.work_done_progress.begin(
        token,
        T.WorkDoneProgressBegin(title="ShellGate agent", message=task[:200], cancellable=True),
    )
    return token


class _NoRunner:
    """Before the first turn's rules are read, nothing can run."""

    async def run(self, request: CommandRequest, on_output: OnOutput) -> CommandResult:
        return CommandResult(Outcome.FAILED, reason="the rules are not loaded yet")
