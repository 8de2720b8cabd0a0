"""The LSP command `shellgate.runCommand`: run a command through the orchestrator (rules,
approval policy, editor approvals, the sandbox) and return its output, so an editor can try
any command against the rules.

Arguments: one object `{command: string (run as bash -lc) | string[], cwd?, approvalPolicy?,
sandbox?, timeout?, approvalTimeout?}`. Result: `{status, exitCode, stdout, stderr, output,
reason, attempts, notes}`. Session approvals and hosts allowed "for this conversation" last as
long as the server.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from shellgate.answer.stage import answer_stage, configured_review, reviewer_for
from shellgate.approval.cache import ApprovalStore
from shellgate.codexconfig import codex_home
from shellgate.exec.network import HostRules
from shellgate.exec.orchestrator import Orchestrator
from shellgate.exec.results import ExecRequest, ExecResult
from shellgate.lsp.approvals import EditorApprover
from shellgate.lsp.broker import to_history
from shellgate.lsp.tracing import context_for
from shellgate.rules.errors import RulesError

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

COMMAND = "shellgate.runCommand"
DEFAULT_APPROVAL_TIMEOUT = 300.0


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def parse_args(args: Any) -> tuple[list[str], str | None, Any, Any, float | None, float]:
    arg = args[0] if isinstance(args, list) and args else args
    command = _field(arg, "command")
    if isinstance(command, str) and command.strip():
        argv = ["bash", "-lc", command]
    elif isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        argv = list(command)
    else:
        raise JsonRpcInvalidParams(
            f"{COMMAND} needs {{command: a non-empty string or list of strings}}"
        )
    cwd = _field(arg, "cwd")
    timeout = _field(arg, "timeout")
    approval_timeout = _field(arg, "approvalTimeout")
    return (
        argv,
        cwd if isinstance(cwd, str) and cwd else None,
        _field(arg, "approvalPolicy"),
        _field(arg, "sandbox"),
        float(timeout) if isinstance(timeout, (int, float)) else None,
        float(approval_timeout) if isinstance(approval_timeout, (int, float))
        else DEFAULT_APPROVAL_TIMEOUT,
    )  # fmt: skip


def result_json(result: ExecResult) -> dict[str, Any]:
    return {
        "status": result.status.value,
        "exitCode": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "output": result.for_model,
        "reason": result.reason,
        "answeredBy": result.answered_by.value,
        "notes": list(result.notes),
        "attempts": [
            {"sandboxed": a.sandboxed, "outcome": a.outcome.value, "exitCode": a.exit_code,
             "permission": a.permission}
            for a in result.attempts
        ],
    }  # fmt: skip


def register(server: ShellGateServer) -> None:
    store = ApprovalStore()  # one editor session: "for this session" lasts while it runs
    hosts = HostRules()

    @server.command(COMMAND)
    async def run_command(ls: Any, args: Any) -> dict[str, Any]:  # pygls reads the hints

        argv, cwd, approval_policy, sandbox, timeout, approval_timeout = parse_args(args)
        try:
            context = context_for(ls.session.settings, approval_policy, sandbox)
        except ValueError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        if cwd is None:
            cwd = str(ls.session.roots[0]) if ls.session.roots else os.getcwd()
        if not os.path.isdir(cwd):
            raise JsonRpcInvalidParams(f"{COMMAND}: cwd {cwd} is not a directory")
        merged = await ls.session.running_async()  # the rules on disk, never editor buffers
        if merged.broken:  # Codex would drop every rule: never run on a half-read policy
            _, err = merged.broken[0]
            return {"status": "forbidden", "exitCode": None, "stdout": "", "stderr": "",
                    "output": "", "reason": f"the rules do not load: {err}", "notes": [],
                    "attempts": []}  # fmt: skip
        home = str(ls.session.settings.codex_home or codex_home())
        events: list[str] = []
        person = EditorApprover(ls, amendments_file=os.path.join(home, "rules", "default.rules"),
                                timeout=approval_timeout)  # fmt: skip
        try:  # Codex's hooks (the admin's and the user's trusted ones), the reviewer, the person
            reviewer = reviewer_for(configured_review(cwd, Path(home)), context.approval_policy,
                                    sandbox=context.sandbox.value,
                                    on_verdict=to_history(ls, "editor"))  # fmt: skip
            stage = answer_stage(person, codex_home=Path(home), cwd=cwd,
                                 approval=context.approval_policy, reviewer=reviewer)  # fmt: skip
        except RulesError as err:
            return {"status": "forbidden", "exitCode": None, "stdout": "", "stderr": "",
                    "output": "", "reason": f"Codex's configuration does not load: {err}",
                    "notes": [], "attempts": []}  # fmt: skip
        orchestrator = Orchestrator(
            merged.policy, person, context, codex_home=home, approval_timeout=approval_timeout,
            command_timeout=timeout, store=store, host_rules=hosts,
            on_event=lambda e: events.append(str(e.get("event"))), answerers=stage,
            originator="editor",
        )  # fmt: skip
        result = await orchestrator.run(ExecRequest(tuple(argv), cwd))
        if "amendment" in events or "network_amendment" in events:
            ls.session.rules_changed()  # the rules on disk changed: re-read them
        return result_json(result)
