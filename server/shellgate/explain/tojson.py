"""An explanation as JSON data, following rules-schema/explain.schema.json."""

from __future__ import annotations

from typing import Any

from shellgate.approval.requirement import (
    ExecApprovalRequirement,
    NeedsApproval,
    requirement_to_json,
)
from shellgate.codexconfig.trust import ProjectTrust
from shellgate.explain.model import Explanation, RuleHit, Segment, Warning

SCHEMA_VERSION = 1


def to_json(ex: Explanation) -> dict[str, Any]:
    ctx = ex.context
    out: dict[str, Any] = {
        "version": SCHEMA_VERSION,
        "command": list(ex.command),
        "shell": ex.shell,
        "script": ex.script,
        "cwd": ex.cwd,
        "context": {
            "approval_policy": ctx.approval_policy.to_json(),
            "sandbox": ctx.sandbox.value,
            "fs_sandbox_kind": ctx.fs_kind.value,
            "sandbox_permissions": ctx.sandbox_permissions.value,
            "justification": ctx.justification,
        },
        "parse": ex.parse.value,
        "segments": [_segment(s) for s in ex.segments],
        "decided_by": ex.decided_by.value,
    }
    if ex.session is not None:
        out["context"]["session"] = {
            "requested_approval_policy": ex.session.requested_approval.to_json(),
            "requested_sandbox": ex.session.requested_sandbox.value,
            "deny_read": list(ex.session.deny_read),
            "warnings": list(ex.session.warnings),
        }
    if ex.decision is not None:
        out["decision"] = ex.decision.value
    out["requirement"] = _requirement(ex.requirement)
    first = ex.first_attempt
    out["first_attempt"] = (
        None
        if first is None
        else {"sandbox_override": first.override.value, "sandboxed": first.sandboxed}
    )
    out["warnings"] = [_warning(w) for w in ex.warnings]
    out["rules_files"] = [{"path": p, "layer": layer} for p, layer in ex.rules_files]
    out["project"] = None if ex.project is None else _project(ex.project)
    if ex.gate is not None:
        out["gate"] = _requirement(ex.gate.requirement)
    diff = ex.split_difference
    if diff is not None:
        out["split_difference"] = {
            "codex_split": [list(c) for c in diff.codex],
            "bash_runs": None if diff.bash is None else list(diff.bash),
            "why": diff.why,
        }
    return out


def _requirement(req: ExecApprovalRequirement) -> dict[str, Any]:
    out = requirement_to_json(req)
    if isinstance(req, NeedsApproval):
        out["one_shot"] = req.one_shot
        out["available_decisions"] = [d.wire for d in req.available_decisions]
    return out


def _project(t: ProjectTrust) -> dict[str, Any]:
    return {
        "source": t.source,
        "cwd": str(t.cwd),
        "root": None if t.root is None else str(t.root),
        "status": t.status,
        "config": str(t.config),
        "entry": t.entry,
        "loads_project_rules": t.loads_project_rules,
        "folders": [
            {"folder": str(f.folder), "status": f.status, "entry": f.entry, "loaded": f.trusted}
            for f in t.folders
        ],
        "description": t.describe(),
    }


def _segment(s: Segment) -> dict[str, Any]:
    heuristic = s.heuristic
    return {
        "command": list(s.command),
        "decision": s.decision.value,
        "matched_rules": [_hit(h) for h in s.rules],
        "heuristic": None
        if heuristic is None
        else {
            "decision": heuristic.decision.value,
            "dangerous": None if heuristic.danger is None else heuristic.danger.value,
            "why": heuristic.why,
        },
        "known_safe": s.known_safe,
    }


def _hit(h: RuleHit) -> dict[str, Any]:
    return {
        "matched_prefix": list(h.matched_prefix),
        "decision": h.decision.value,
        "justification": h.justification,
        "file": h.path,
        "line": h.line,
        "column": h.column,
        "layer": h.layer,
        "resolved_program": h.resolved_program,
    }


def _warning(w: Warning) -> dict[str, Any]:
    return {
        "code": w.code,
        "message": w.message,
        "segment": w.segment,
        "inner_command": None if w.inner_command is None else list(w.inner_command),
    }
