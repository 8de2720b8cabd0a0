"""The MCP wiring: two tools on stdio (no network listener), the logic in the modules beside it.

- `shell`: a command through ShellGate's chain (shell.py), approvals by approvers.py;
- `approve`: Claude Code's permission prompt tool (approve.py).

`serve` runs the SDK on the wire the fast-start front end claimed (front.py).
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any, Literal

import anyio
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, TextContent
from mcp_types.version import is_version_at_least
from pydantic import Field, ValidationError

from shellgate import __version__
from shellgate.mcp import approve as approve_tool
from shellgate.mcp import editor
from shellgate.mcp.approvers import CallApprover, Question, predict_question
from shellgate.mcp.call import CallError, ShellCall, invalid_params, parse_call
from shellgate.mcp.front import Front
from shellgate.mcp.shell import McpSession, report
from shellgate.rules.errors import RulesError

SHELL_DESCRIPTION = (
    "Runs a shell command through ShellGate and returns its exit code and output. `command` is "
    "a script run as `bash -lc` (or an argv list, run as is). Every command is checked against "
    "the user's Codex rules and approval policy and runs in a sandbox (writes inside the "
    "workspace only, no network); the user may be asked to approve it. A command the sandbox "
    "blocked can be retried with sandbox_permissions \"require_escalated\" and a justification."
)
APPROVE_DESCRIPTION = (
    "Permission prompt tool for Claude Code (--permission-prompt-tool mcp__shellgate__approve): "
    "asks the user in the ShellGate editor dialog whether a tool may run."
)

# Agents by the clientInfo.name their MCP clients send, for the editor's dialog.
_AGENTS = {"claude-code": "claude-code", "codex-mcp-client": "codex", "codex": "codex",
           "gemini-cli-mcp-client": "gemini", "gemini-cli": "gemini"}  # fmt: skip


def _agent(ctx: Context) -> str:
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", "") or ""
    return _AGENTS.get(name, "mcp")


def _modern(ctx: Context) -> bool:
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, "2026-07-28")


def _can_elicit(ctx: Context) -> bool:
    caps = ctx.client_capabilities
    elicitation = caps.elicitation if caps is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def _session(ctx: Context) -> McpSession:
    session: McpSession = ctx.mcp_server.shellgate_session  # type: ignore[attr-defined]
    return session


def _checked(session: McpSession, command: Any, workdir: str | None, timeout_ms: int | None,
             justification: str | None, sandbox_permissions: str) -> ShellCall:  # fmt: skip
    try:
        return parse_call(session.workspace, command, workdir, timeout_ms, justification,
                          sandbox_permissions)  # fmt: skip
    except CallError as exc:
        raise ToolError(str(exc)) from None


class _Asked:
    def __init__(self, question: Question, elicit: Elicit[Any]) -> None:
        self.question, self.elicit = question, elicit


class _Answered:
    def __init__(self, question: Question, outcome: Any) -> None:
        self.question, self.outcome = question, outcome


# The resolvers (protocol 2026-07-28): `_first_question` works out what the orchestrator will
# ask, `_ask` puts it to the client before anything runs (the SDK makes it an InputRequiredResult
# round trip), `_answered` hands the outcome on with the question it answers.
async def _first_question(command: Any, workdir: str | None, timeout_ms: int | None,
                    justification: str | None, sandbox_permissions: str,
                    ctx: Context) -> Any:  # fmt: skip
    session = _session(ctx)
    call = _checked(session, command, workdir, timeout_ms, justification, sandbox_permissions)
    if not _modern(ctx) or not _can_elicit(ctx) or editor.available(call.workdir):
        return None
    try:
        question = predict_question(call, session.context, session.policy(), session.store)
    except RulesError:
        return None  # the call itself refuses, with the error
    if question is None:
        return None
    return _Asked(question, Elicit(question.message, question.model()))


async def _ask(question: Annotated[Any, Resolve(_first_question)]) -> Any:
    return question.elicit if isinstance(question, _Asked) else None


async def _answered(
    asked: Annotated[ElicitationResult[Any], Resolve(_ask)],
    question: Annotated[Any, Resolve(_first_question)],
) -> Any:
    return _Answered(question.question, asked) if isinstance(question, _Asked) else None


async def shell(
    command: Annotated[str | list[str], Field(
        description="The shell script to run (as `bash -lc`), or an argv list")],
    ctx: Context,
    answer: Annotated[ElicitationResult[Any], Resolve(_answered)],
    workdir: Annotated[str | None, Field(
        description="The directory to run in, inside the workspace (default: its root)")
    ] = None,
    timeout_ms: Annotated[int | None, Field(
        description="Kill the command after this many milliseconds", gt=0)] = None,
    justification: Annotated[str | None, Field(
        description="Why it should run: shown to the user when approval is needed")] = None,
    sandbox_permissions: Annotated[Literal["use_default", "require_escalated"], Field(
        description="\"require_escalated\" asks to run without the sandbox")
    ] = "use_default",
) -> CallToolResult:  # fmt: skip
    session = _session(ctx)
    call = _checked(session, command, workdir, timeout_ms, justification, sandbox_permissions)
    modern = _modern(ctx)
    answered = getattr(answer, "data", None)
    approver = CallApprover(
        cwd=call.workdir, agent=_agent(ctx), session_id=session.session_id,
        approval_policy=session.approval_policy.label(), sandbox=session.sandbox.value,
        modern=modern, elicit=None if modern or not _can_elicit(ctx) else _legacy_elicit(ctx),
        answered=((answered.question, answered.outcome) if isinstance(answered, _Answered)
                  else None),
        editor_timeout=session.approval_timeout)  # fmt: skip

    async def progress(elapsed: float, message: str) -> None:
        await ctx.report_progress(elapsed, None, message)

    started = time.monotonic()
    result = await session.run(call, approver, progress)
    text, structured, is_error = report(call, result, approver.refusals,
                                        time.monotonic() - started)  # fmt: skip
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=structured if session.structured else None,
                          is_error=is_error)  # fmt: skip


async def approve(
    tool_name: Annotated[str, Field(description="The tool asking for permission")],
    input: Annotated[dict[str, Any], Field(description="The tool's input")],
    ctx: Context,
    tool_use_id: str | None = None,
) -> str:
    session = _session(ctx)
    decision = await approve_tool.permission_answer(tool_name, input, cwd=session.workspace,
                                         session_id=session.session_id,
                                         timeout=session.approval_timeout)  # fmt: skip
    return json.dumps(decision, ensure_ascii=False)


class _Server(MCPServer):
    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> Any:  # fmt: skip
        """The SDK's, but arguments its schema check refuses are said plainly (pydantic's own
        text lists each union branch and a link to its docs): still a tool error, which the
        model reads and corrects."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            raise ToolError(invalid_params(name, cause.errors(), arguments)) from cause


def build_server(session: McpSession) -> MCPServer:
    server: MCPServer = _Server("shellgate", version=__version__, instructions=SHELL_DESCRIPTION)
    server.shellgate_session = session  # type: ignore[attr-defined]
    server.add_tool(shell, description=SHELL_DESCRIPTION)
    # Exactly one text block: Claude Code rejects a permission answer with structuredContent.
    server.add_tool(approve, description=APPROVE_DESCRIPTION, structured_output=False)
    return server


def _legacy_elicit(ctx: Context) -> Any:
    async def elicit(message: str, schema: dict[str, Any]) -> Any:
        return await ctx.session.elicit_form(message, requested_schema=schema,
                                             related_request_id=ctx.request_id)  # fmt: skip

    return elicit


def serve(session: McpSession, front: Front) -> None:
    """Serves the wire `front` claimed (front.py): the SDK reads every line the client sent,
    from the first, and its answers pass the front to the client."""
    server = build_server(session)
    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async serves, on our streams

    async def run() -> None:
        async with stdio_server(stdin=front.sdk_stdin,  # type: ignore[arg-type]
                                stdout=front.sdk_stdout,  # type: ignore[arg-type]
                                ) as (read, write):  # fmt: skip
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    anyio.run(run)
