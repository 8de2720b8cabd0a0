"""The provider-neutral tool-calling loop.

Per user message (a turn): call the model with the whole history; stream its text; if it asked
for tool calls, run them in order, one at a time (approvals are sequential for the user), each
through the `CommandRunner`; give the results back; repeat until a text-only answer, the turn
limit, the wall-clock budget, an abort, a cancel or an error. What the model reads of each
outcome mirrors Codex.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from shellgate.agent.config import AgentConfig
from shellgate.agent.events import EventSink
from shellgate.agent.history import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    ToolCall,
    ToolResult,
    UserMessage,
)
from shellgate.agent.model import ModelClient, ModelError
from shellgate.agent.retry import with_retries
from shellgate.agent.runner import CommandRequest, CommandResult, CommandRunner, Outcome
from shellgate.agent.tool import SHELL_TOOL, ToolArgumentError, format_ran, parse_arguments
from shellgate.approval.question import REJECTED_BY_USER

# Codex's words, verbatim: the user message that follows an interrupted turn.
TURN_ABORTED = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified "
    "exec processes may still be running in the background. If any tools/commands were "
    "aborted, they may have partially executed.\n</turn_aborted>")
ABORTED_BY_USER = "aborted by user"
MAX_CONSECUTIVE_TOOL_ERRORS = 3

SYSTEM_PROMPT = (
    "You are a coding agent working in the user's workspace at {cwd}. Use the shell_command "
    "tool to inspect and change files. Every command is checked against the user's rules, may "
    "need the user's approval and runs in a sandbox: if a command is refused or declined, do "
    "not try to get around it; adapt or ask. When a command needs approval, give a one-sentence "
    "`justification`. Finish with a short summary of what you did.")


class TurnStatus(StrEnum):
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"  # cancelled (progress Cancel, Ctrl-C)
    ABORTED = "aborted"  # the user chose "No, and tell the agent what to do differently"
    MAX_TURNS = "max_turns"
    BUDGET = "budget"  # wall-clock budget spent
    FAILED = "failed"


@dataclass(frozen=True)
class TurnResult:
    status: TurnStatus
    final_text: str
    model_calls: int
    message: str | None = None  # why it ended, when not completed


def _app_server_status(status: TurnStatus) -> str:
    if status is TurnStatus.COMPLETED:
        return "completed"
    if status in (TurnStatus.INTERRUPTED, TurnStatus.ABORTED):
        return "interrupted"
    return "failed"


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


class AgentSession:
    """One conversation (a Codex thread): its history survives across user messages."""

    def __init__(self, client: ModelClient, runner: CommandRunner, config: AgentConfig,
                 cwd: str, sink: EventSink, *, system_prompt: str | None = None) -> None:
        self.client = client
        self.runner = runner
        self.config = config
        self.cwd = os.path.abspath(cwd)
        self.sink = sink
        self.system = (system_prompt or SYSTEM_PROMPT).format(cwd=self.cwd)
        self.tools: Sequence[dict[str, Any]] = (SHELL_TOOL,)
        self.history: list[Message] = []
        self._context: list[str] = []  # hooks' additionalContext, sent after the tool results
        self.thread_id = _new_id("thr")
        self._interrupted = False
        self._logged_items = 0
        self._task: asyncio.Task[TurnResult] | None = None
        self.sink("thread/started", {"thread": {"id": self.thread_id, "cwd": self.cwd,
                                                "modelProvider": config.model_url,
                                                "model": config.model}})

    # ---- public -----------------------------------------------------------------------------
    async def run_turn(self, text: str) -> TurnResult:
        """Run one user message to its end; `cancel()` (or cancelling this task) interrupts."""
        task = self._task = asyncio.ensure_future(self._turn(text))
        try:
            # Shielded so that cancelling the caller still lets the turn clean up (process
            # group killed, history answered) before the cancellation goes on up.
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.cancel()
            await task
            raise
        finally:
            self._task = None

    def cancel(self) -> bool:
        if self._task is None or self._task.done():
            return False
        self._task.cancel()
        return True

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # ---- one turn ---------------------------------------------------------------------------
    async def _turn(self, text: str) -> TurnResult:
        turn_id = _new_id("turn")
        ids = {"threadId": self.thread_id, "turnId": turn_id}
        self.sink("turn/started", {"threadId": self.thread_id,
                                   "turn": {"id": turn_id, "status": "inProgress"}})
        if self._interrupted:  # as Codex does: tell the model the last turn was cut short
            self.history.append(UserMessage(TURN_ABORTED))
            self._interrupted = False
        self.history.append(UserMessage(text))
        item = {"type": "userMessage", "id": _new_id("item"),
                "content": [{"type": "text", "text": text}]}
        self.sink("item/started", {**ids, "item": item})
        self.sink("item/completed", {**ids, "item": item})
        state = _TurnState()
        try:
            async with asyncio.timeout(self.config.budget_s):
                result = await self._calls(ids, state)
        except TimeoutError:
            result = TurnResult(TurnStatus.BUDGET, state.final_text, state.model_calls,
                                f"the wall-clock budget of {self.config.budget_s:g} s is spent")
        except asyncio.CancelledError:
            result = TurnResult(TurnStatus.INTERRUPTED, state.final_text, state.model_calls,
                                "interrupted by the user")
        except ModelError as exc:
            self.sink("error", {**ids, "error": {"message": exc.message,
                                                 "httpStatusCode": exc.status},
                                "willRetry": False})
            result = TurnResult(TurnStatus.FAILED, state.final_text, state.model_calls,
                                exc.message)
        # Every tool call the model made gets an answer, or the next request is invalid.
        for call in state.unanswered():
            self.history.append(ToolResult(call.call_id, ABORTED_BY_USER))
        if result.status in (TurnStatus.INTERRUPTED, TurnStatus.ABORTED):
            self._interrupted = True
        turn: dict[str, Any] = {"id": turn_id, "status": _app_server_status(result.status),
                                "shellgateStatus": result.status.value,
                                "modelCalls": result.model_calls}
        if result.message:
            turn["error"] = {"message": result.message}
        self.sink("turn/completed", {"threadId": self.thread_id, "turn": turn})
        return result

    async def _calls(self, ids: dict[str, str], state: _TurnState) -> TurnResult:
        consecutive_errors = 0
        for _ in range(self.config.max_turns):
            state.model_calls += 1
            answer = await self._model_call(ids, state)
            self.history.append(AssistantMessage(answer.text, answer.tool_calls))
            state.pending = list(answer.tool_calls)
            if answer.text:
                state.final_text = answer.text
            if not answer.tool_calls:
                return TurnResult(TurnStatus.COMPLETED, state.final_text, state.model_calls)
            for call in answer.tool_calls:
                ok, aborted = await self._tool_call(ids, call)
                state.pending.remove(call)
                if not state.pending:  # after every tool result: the hooks' context (Codex)
                    self.history.extend(DeveloperMessage(t) for t in self._context)
                    self._context.clear()
                consecutive_errors = 0 if ok else consecutive_errors + 1
                if aborted:
                    return TurnResult(TurnStatus.ABORTED, state.final_text, state.model_calls,
                                      "the user declined and will say what to do instead")
            if consecutive_errors >= MAX_CONSECUTIVE_TOOL_ERRORS:
                return TurnResult(TurnStatus.FAILED, state.final_text, state.model_calls,
                                  f"{consecutive_errors} invalid tool calls in a row")
        return TurnResult(TurnStatus.MAX_TURNS, state.final_text, state.model_calls,
                          f"the turn limit of {self.config.max_turns} model calls is reached")

    async def _model_call(self, ids: dict[str, str], state: _TurnState) -> Any:
        item_id = _new_id("item")
        started = False

        def on_text(delta: str) -> None:
            nonlocal started
            if not delta:
                return
            if not started:
                started = True
                self.sink("item/started", {**ids, "item": {"type": "agentMessage",
                                                           "id": item_id, "text": ""}})
            self.sink("item/agentMessage/delta", {**ids, "itemId": item_id, "delta": delta})

        def on_retry(attempt: int, delay: float, exc: ModelError) -> None:
            self.sink("model/retry", {**ids, "attempt": attempt, "delaySeconds": delay,
                                      "message": exc.message})

        self._log_request(ids, state.model_calls)
        answer = await with_retries(
            lambda: self.client.complete(self.history, self.system, self.tools, on_text),
            max_retries=self.config.max_retries, on_retry=on_retry)
        if started or answer.text:
            if not started:
                self.sink("item/started", {**ids, "item": {"type": "agentMessage",
                                                           "id": item_id, "text": ""}})
            self.sink("item/completed", {**ids, "item": {"type": "agentMessage",
                                                         "id": item_id, "text": answer.text}})
        return answer

    def _log_request(self, ids: dict[str, str], call: int) -> None:
        """Record the request sent: its settings, and only the history items new since the last
        request (the history is append-only, so the items of all requests rebuild each body);
        logging every whole body would make a long task's transcript grow quadratically."""
        body = self.client.describe_request(self.history, self.system, self.tools)
        key = "messages" if "messages" in body else "input"
        items = body.pop(key)
        new, self._logged_items = items[self._logged_items:], len(items)
        self.sink("model/request", {**ids, "call": call, "wireApi": self.config.wire_api.value,
                                    "url": self.config.model_url, "body": body,
                                    "itemsKey": key, "itemCount": len(items),
                                    "newItems": new})

    async def _tool_call(self, ids: dict[str, str], call: ToolCall) -> tuple[bool, bool]:
        """Run one call; return (arguments were valid, the user aborted the turn)."""
        item_id = _new_id("item")
        try:
            args = parse_arguments(call.name, call.arguments)
            workdir = self._workdir(args.workdir)
        except ToolArgumentError as exc:
            invalid = {"type": "invalidToolCall", "id": item_id, "tool": call.name,
                       "arguments": call.arguments, "error": str(exc)}
            self.sink("item/started", {**ids, "item": invalid})
            self.sink("item/completed", {**ids, "item": invalid})
            self.history.append(ToolResult(call.call_id, str(exc)))
            return False, False
        item: dict[str, Any] = {"type": "commandExecution", "id": item_id,
                                "command": args.command, "cwd": workdir, "processId": None,
                                "status": "inProgress", "commandActions": [],
                                "aggregatedOutput": None, "exitCode": None,
                                "durationMs": None, "justification": args.justification,
                                "prefixRule": list(args.prefix_rule or []) or None}
        self.sink("item/started", {**ids, "item": item})
        request = CommandRequest(args.command, workdir, args.justification, args.prefix_rule,
                                 args.escalated, args.timeout_ms, item_id)
        output: list[str] = []

        def on_output(delta: str) -> None:
            output.append(delta)
            self.sink("item/commandExecution/outputDelta",
                      {**ids, "itemId": item_id, "delta": delta})

        started = time.monotonic()
        try:
            result = await self.runner.run(request, on_output)
        except asyncio.CancelledError:
            done = {**item, "status": "failed", "aggregatedOutput": "".join(output),
                    "durationMs": int((time.monotonic() - started) * 1000)}
            self.sink("item/completed", {**ids, "item": done})
            raise
        if result.decision is not None:
            self.sink("item/commandExecution/approval",
                      {**ids, "itemId": item_id, "decision": result.decision})
        status = {Outcome.RAN: "completed", Outcome.FAILED: "failed"}.get(result.outcome,
                                                                          "declined")
        self.sink("item/completed", {**ids, "item": {
            **item, "status": status, "aggregatedOutput": result.output or "".join(output),
            "exitCode": result.exit_code, "durationMs": int(result.duration_s * 1000),
            "outcome": result.outcome.value, "reason": result.reason}})
        self.history.append(ToolResult(call.call_id, self._tell_model(args.command, result)))
        self._context.extend(result.context)
        return True, result.outcome is Outcome.ABORTED

    def _workdir(self, requested: str | None) -> str:
        """The command's directory, inside the workspace. The sandbox's writable root follows the
        command's directory, so a model-chosen `/` or `~` would widen what it may write."""
        workdir = os.path.normpath(os.path.join(self.cwd, requested or "."))
        real, root = os.path.realpath(workdir), os.path.realpath(self.cwd)
        if real != root and not real.startswith(root.rstrip("/") + "/"):
            raise ToolArgumentError(f"`workdir` {requested} is outside the workspace {self.cwd}; "
                                    "nothing was run")
        return workdir

    def _tell_model(self, command: str, result: CommandResult) -> str:
        if result.outcome is Outcome.RAN:
            return format_ran(result.exit_code if result.exit_code is not None else -1,
                              result.duration_s, result.output, self.config.max_output_bytes)
        if result.outcome is Outcome.DECLINED:
            return REJECTED_BY_USER
        if result.outcome is Outcome.ABORTED:
            return ABORTED_BY_USER
        if result.outcome is Outcome.FORBIDDEN:
            return result.reason or f"`{command}` rejected: blocked by policy"
        return f"execution error: {result.reason or 'the command could not be started'}"


@dataclass
class _TurnState:
    model_calls: int = 0
    final_text: str = ""
    pending: list[ToolCall] | None = None

    def unanswered(self) -> list[ToolCall]:
        return list(self.pending or [])
