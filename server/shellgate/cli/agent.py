"""`shellgate agent`: a model-driven agent in the terminal. Each command the model proposes goes
through the rules, the approval policy (questions asked here), and the bubblewrap sandbox.

Exit status: 0 the task completed; 1 the model server failed; 2 usage; 120 bad rules (nothing
ran); 123 aborted with no new instruction; 124 the turn limit or the time budget was hit;
130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from shellgate.agent.config import AgentConfig, WireApi
from shellgate.cli import common
from shellgate.shell import bash_reading
from shellgate.untrusted import escape_untrusted

PROG = "shellgate agent"
EXIT_MODEL_ERROR = 1
EXIT_RULES_ERROR = 120
EXIT_ABORTED = 123
EXIT_LIMIT = 124
EXIT_INTERRUPTED = 130

USAGE = (
    "shellgate agent [--model-url URL] [--model NAME] [--wire-api chat|responses] "
    "[--api-key-env VAR] [--approval-policy POLICY] [--sandbox MODE] [--cwd DIR] "
    "[--rules FILE]... [--codex-home DIR] [--project DIR] [--standin SCRIPT] "
    "[--transcript FILE] [--max-turns N] [--budget SECONDS] [--no-stream] "
    "[--approval-timeout SECONDS] [--approve-for-me] TASK"
)


def _parser() -> argparse.ArgumentParser:
    d = AgentConfig()
    p = argparse.ArgumentParser(
        prog=PROG, usage=USAGE,
        description="Give a task to a model (any OpenAI-compatible server, or the bundled "
        "stand-in); every command it proposes passes the rules, your approval when the policy "
        "asks, and the sandbox.",
        epilog="exit status: 0 completed, 1 model server error, 2 usage, 120 bad rules, "
        "123 aborted, 124 turn limit or budget hit, 130 interrupted")
    p.add_argument("task", nargs="+", help="what the agent should do")
    p.add_argument("--model-url", default=os.environ.get("SHELLGATE_MODEL_URL", d.model_url),
                   metavar="URL", help=f"OpenAI-compatible base URL (default {d.model_url}, "
                   "Ollama's; $SHELLGATE_MODEL_URL)")
    p.add_argument("--model", default=os.environ.get("SHELLGATE_MODEL", d.model),
                   metavar="NAME", help=f"model name (default {d.model}; $SHELLGATE_MODEL)")
    p.add_argument("--wire-api", choices=["chat", "responses"], default="chat",
                   help="Chat Completions (default: every server has it) or the Responses API")
    p.add_argument("--api-key-env", default=d.api_key_env, metavar="VAR",
                   help=f"the environment variable holding the API key (default {d.api_key_env})"
                   "; the key itself is never written anywhere")
    p.add_argument("--approval-policy", metavar="POLICY",
                   help="untrusted, on-request, never, or granular JSON (default: Codex's "
                   "config files, else on-request; the admin's requirements may clamp it)")
    p.add_argument("--sandbox",
                   choices=["read-only", "workspace-write", "danger-full-access"],
                   help="the sandbox mode (default: Codex's config files, else "
                   "workspace-write; the admin's requirements may clamp it)")
    p.add_argument("--cwd", metavar="DIR", help="the workspace (default: the current directory)")
    p.add_argument("--rules", action="append", default=[], metavar="FILE",
                   help="an extra rules file, loaded after the user and project layers "
                   "(repeatable)")
    p.add_argument("--codex-home", metavar="DIR",
                   help="Codex's home (default $CODEX_HOME, else ~/.codex): its rules load "
                   "first; amendments go to its rules/default.rules")
    p.add_argument("--project", metavar="DIR",
                   help="a project you trust, whatever Codex's config.toml says: its "
                   ".codex/rules/*.rules load (default: the trusted project of --cwd, as Codex "
                   "decides)")
    p.add_argument("--standin", metavar="SCRIPT",
                   help="no model: run the bundled stand-in server with this script on "
                   "127.0.0.1 (see examples/agent/)")
    p.add_argument("--transcript", metavar="FILE",
                   help="where to write the JSON-lines transcript (default: under "
                   "$XDG_STATE_HOME/shellgate/transcripts/)")
    p.add_argument("--max-turns", type=int, default=d.max_turns, metavar="N",
                   help=f"model calls per message (default {d.max_turns})")
    p.add_argument("--budget", type=float, default=d.budget_s, metavar="SECONDS",
                   help=f"wall-clock budget per message (default {d.budget_s:g})")
    p.add_argument("--no-stream", action="store_true", help="ask for whole answers")
    p.add_argument("--approve-for-me", action="store_true",
                   help="route approval requests through automatic review (Codex's "
                   "auto-reviewer) on the agent's own model, with on-request approvals unless "
                   "--approval-policy says otherwise")  # fmt: skip
    p.add_argument("--approval-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="an unanswered question counts as denied after this (default 300)")
    return p


class TerminalView:
    """Prints the session as it happens: model text and command output on stdout, the rest on
    stderr. Everything the model or a command wrote is escaped before it reaches the terminal."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self._mid_line = False

    def __call__(self, method: str, params: dict[str, Any]) -> None:

        item = params.get("item") or {}
        kind = item.get("type")
        if method == "item/agentMessage/delta":
            self._write(escape_untrusted(params["delta"]))
        elif method == "item/completed" and kind == "agentMessage":
            self._end_line()
        elif method == "item/started" and kind == "commandExecution":
            self._end_line()
            self.out.write(f"$ {escape_untrusted(item['command'])}\n")
            self.out.flush()
        elif method == "item/commandExecution/outputDelta":
            self._write(escape_untrusted(params["delta"]))
        elif method == "item/completed" and kind == "commandExecution":
            self._end_line()
            self.err.write(f"  [{_outcome_line(item)}]\n")
            self.err.flush()
        elif method == "item/completed" and kind == "invalidToolCall":
            self._end_line()
            self.err.write(f"  [not run: {escape_untrusted(item['error'])}]\n")
        elif method == "model/retry":
            self._end_line()
            self.err.write(f"  [model server: {escape_untrusted(params['message'])} retrying "
                           f"in {params['delaySeconds']:.1f} s]\n")
        elif method == "error":
            self._end_line()
            self.err.write(f"shellgate agent: {escape_untrusted(params['error']['message'])}\n")

    def _write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")

    def _end_line(self) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False


def _outcome_line(item: dict[str, Any]) -> str:

    outcome = item.get("outcome")
    reason = escape_untrusted(item.get("reason") or "")
    if outcome == "ran":
        return f"exit {item.get('exitCode')}, {item.get('durationMs')} ms"
    if outcome == "forbidden":
        return f"forbidden, not run: {reason}"
    if outcome == "declined":
        return "declined, not run"
    if outcome == "aborted":
        return "aborted"
    return f"not run: {reason}"


def main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return common.exit_status(exc)

    bash_reading.enable()  # a process that runs commands: bash's own grammar checks each split
    cwd = common.workdir(PROG, args.cwd)
    if isinstance(cwd, int):
        return cwd
    try:
        " ".join(args.task).encode("utf-8")  # undecodable bytes arrive as lone surrogates
    except UnicodeEncodeError:
        print(f"{PROG}: error: the task is not valid UTF-8 (the model reads text)",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.max_turns < 1 or args.budget <= 0:
        print(f"{PROG}: error: --max-turns and --budget must be positive", file=sys.stderr)
        return 2
    approval = common.approval_policy(PROG, args.approval_policy)
    if isinstance(approval, int):
        return approval
    if args.approve_for_me and approval is None:  # Codex's --approve-for-me: on-request
        # deferred: once the arguments are parsed
        from shellgate.approval.context import ON_REQUEST

        approval = ON_REQUEST
    standin_script = None
    if args.standin:
        # deferred: only --standin reads a stand-in script
        from shellgate.agent.standin import load_script

        try:
            standin_script = load_script(Path(args.standin))
        except ValueError as exc:
            print(f"{PROG}: error: --standin: {exc}", file=sys.stderr)
            return 2
    running = common.running_session(PROG, args, cwd, approval, status=EXIT_RULES_ERROR)
    if isinstance(running, int):
        return running
    codex_home, policy, session = running
    try:
        return asyncio.run(_run(args, " ".join(args.task), cwd, session, policy, codex_home,
                                standin_script))
    except KeyboardInterrupt:
        print("\nshellgate agent: interrupted; the running command was stopped",
              file=sys.stderr)
        return EXIT_INTERRUPTED


async def _run(args: argparse.Namespace, task: str, cwd: str, limits: Any, policy: Any,
               codex_home: Path, standin_script: list[dict[str, Any]] | None) -> int:
    # deferred: the agent's machinery (agent.factory alone ~60 ms) once the arguments
    # are parsed: `--help` and usage errors answer without it
    from shellgate.agent.events import Transcript, default_transcript_path, fanout
    from shellgate.agent.factory import make_model_client
    from shellgate.agent.loop import AgentSession, TurnStatus
    from shellgate.agent.orchestrated import OrchestratedRunner

    # deferred: Codex's hooks and the reviewer, as the agent's other machinery
    from shellgate.answer.review_client import Provider
    from shellgate.answer.stage import answer_stage, configured_review, reviewer_for
    from shellgate.answer.transcripts import from_history
    from shellgate.approval.context import ExecContext
    from shellgate.exec.orchestrator import Orchestrator
    from shellgate.exec.terminal import TerminalApprover
    from shellgate.rules.errors import RulesError

    standin = None
    model_url, model = args.model_url, args.model
    if standin_script is not None:
        # deferred: only the stand-in model needs it
        from shellgate.agent.standin import StandIn

        standin = StandIn(standin_script)
        model_url, model = standin.start(), "stand-in"
        print(f"shellgate agent: stand-in model server on {model_url}", file=sys.stderr)
    config = AgentConfig(model_url=model_url, model=model, wire_api=WireApi.parse(args.wire_api),
                         api_key_env=args.api_key_env, stream=not args.no_stream,
                         max_turns=args.max_turns, budget_s=args.budget)
    approver = TerminalApprover()
    holder: list[AgentSession] = []  # the session, once made: the reviewer reads its history
    try:
        review = configured_review(cwd, codex_home, approve_for_me=args.approve_for_me,
                                   provider=Provider(config.model, config.model_url,
                                                     config.wire_api.value, config.api_key_env))
        if review.warning:
            print(f"{PROG}: warning: {review.warning}", file=sys.stderr)
        reviewer = reviewer_for(review, limits.approval_policy, transcript=lambda: from_history(
            holder[0].history if holder else []), sandbox=limits.sandbox.value)  # fmt: skip
    except RulesError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_RULES_ERROR
    orchestrator = Orchestrator(
        policy, approver,
        ExecContext(approval_policy=limits.approval_policy, sandbox=limits.sandbox,
                    fs_policy_has_denied_reads=bool(limits.deny_read)),
        codex_home=str(codex_home), approval_timeout=args.approval_timeout, asker="the agent",
        answerers=answer_stage(approver, codex_home=codex_home, cwd=cwd, project=args.project,
                               approval=limits.approval_policy, model=model, reviewer=reviewer),
        originator="agent")
    client = make_model_client(config)
    view = TerminalView(sys.stdout, sys.stderr)
    transcript: Transcript | None = None
    try:
        pending: list[tuple[str, dict[str, Any]]] = []
        session = AgentSession(client, OrchestratedRunner(orchestrator), config, cwd,
                               lambda m, p: pending.append((m, p)))
        holder.append(session)
        path = Path(args.transcript) if args.transcript else default_transcript_path(
            session.thread_id)
        transcript = Transcript(path)
        for method, params in pending:  # thread/started, emitted before the file existed
            transcript(method, params)
        session.sink = fanout(view, transcript)
        message = task
        while True:
            if reviewer is not None:
                reviewer.new_turn()  # the circuit breaker counts denials in a turn
            try:
                result = await session.run_turn(message)
            except asyncio.CancelledError:
                print(f"\nshellgate agent: interrupted. Transcript: {path}", file=sys.stderr)
                return EXIT_INTERRUPTED
            if result.status is not TurnStatus.ABORTED:
                break
            # "No, and tell the agent what to do differently": the next message is the user's.
            sys.stderr.write("What should the agent do differently? (empty line: stop) > ")
            sys.stderr.flush()
            line = await approver._read(sys.stdin.fileno(), False)  # shares its typed-ahead
            message = (line or "").strip()
            if not message:
                print(f"shellgate agent: stopped. Transcript: {path}", file=sys.stderr)
                return EXIT_ABORTED
        view._end_line()
        print(f"shellgate agent: {result.status.value}"
              + (f" ({result.message})" if result.message else "")
              + f". Transcript: {path}", file=sys.stderr)
        if result.status is TurnStatus.COMPLETED:
            return 0
        if result.status in (TurnStatus.MAX_TURNS, TurnStatus.BUDGET):
            return EXIT_LIMIT
        return EXIT_MODEL_ERROR
    finally:
        await client.aclose()
        if transcript is not None:
            transcript.close()
        if standin is not None:
            standin.stop()
