"""Custom request `shellgate/status`: what the server has loaded, for the editor's status bar.

Result: `{"rules": N, "files": [paths], "layers": [layer of each file], "refused": [{"path",
"line", "column", "message"}], "unsaved": [paths], "drafts": [paths], "approvalsWaiting": N,
"approvalsShowing": 0|1}`: the rules that run (every layer as saved on disk), the files Codex
would refuse (then it runs with none of the rules), what the editor shows but does not run
(layer files with unsaved edits, open drafts outside every layer), and outside agents'
questions queued behind the dialog on screen (also pushed as the notification
`shellgate/status` with just those two counts, lsp/broker.py). `codexTrust`: for each workspace
folder with a `.codex` folder, `{root, status, codexLoads, message}`: whether Codex itself reads
its rules (its config.toml's trust; the editor runs with them either way). `requirements`:
the admin's clamp of the editor's approval policy and sandbox (`{approvalPolicy, sandbox,
warnings}`, Codex's fallback and warnings), or null. `autoReview`: Codex's auto-reviewer when it
answers the editor's questions (`{model, provider, base_url, wire_api, timeout_ms}`), or null.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from shellgate.answer.stage import configured_review
from shellgate.approval.answerers import reviews
from shellgate.approval.context import ApprovalPolicy, SandboxMode
from shellgate.codexconfig import codex_home
from shellgate.codexconfig.resolve import managed_session
from shellgate.lsp.session import document_path
from shellgate.lsp.tracing import codex_trust_notes
from shellgate.rules.errors import RulesError

if TYPE_CHECKING:
    from shellgate.lsp.server import ShellGateServer

METHOD = "shellgate/status"


def register(server: ShellGateServer) -> None:
    @server.feature(METHOD)
    async def status(ls: ShellGateServer, params: Any) -> dict[str, Any]:
        merged = await ls.session.running_async()
        typed = await ls.session.merged_async()
        session = ls.session
        drafts = [
            p
            for p in (document_path(u) for u in session.open_uris())
            if p.endswith(".rules") and merged.layer_of(p) is None
        ]
        broker = getattr(ls, "shellgate_broker", None)
        desk = broker.desk if broker is not None else None
        return {
            "approvalsWaiting": desk.waiting if desk is not None else 0,
            "approvalsShowing": desk.showing if desk is not None else 0,
            "rules": len(merged.policy.rules),
            "files": [f.path for f in merged.files],
            "layers": [f.layer for f in merged.files],  # of each file, in the same order
            "refused": [
                {"path": e.path, "line": e.line, "column": e.column, "message": e.message}
                for _, e in merged.broken
            ],
            "unsaved": list(typed.unsaved),
            "drafts": drafts,
            "codexTrust": codex_trust_notes(session.settings, session.roots),
            "requirements": requirements_clamp(session.settings),
            "autoReview": _auto_review(session),
        }


def _auto_review(session: Any) -> dict[str, Any] | None:
    """Codex's auto-reviewer when it answers the editor's questions (Codex's config for the
    first workspace folder turns it on, and the policy routes questions to it), else None."""
    if not session.roots:
        return None
    try:
        policy = ApprovalPolicy.parse(session.settings.approval_policy)
        home = Path(session.settings.codex_home or codex_home())
        review = configured_review(str(session.roots[0]), home)
    except (RulesError, ValueError):
        return None  # a broken configuration is reported where the rules load
    return review.describe() if reviews(policy) else None


def requirements_clamp(settings: Any) -> dict[str, Any] | None:
    """The admin's clamp of the editor's policy and sandbox (/etc/codex/requirements.toml):
    `{approvalPolicy, sandbox, warnings}` as Codex falls back, or None without requirements
    (a broken file is in `refused`)."""
    try:
        found = managed_session(ApprovalPolicy.parse(settings.approval_policy),
                                SandboxMode(settings.sandbox))  # fmt: skip
    except RulesError as exc:  # a session Codex refuses; or a broken file
        return {"approvalPolicy": None, "sandbox": None, "warnings": [exc.message]}
    except ValueError:
        return None
    if not found.warnings:
        return None
    return {"approvalPolicy": found.approval_policy.label(), "sandbox": found.sandbox.value,
            "warnings": list(found.warnings)}  # fmt: skip
