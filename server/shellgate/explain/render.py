"""An explanation as text for a person: the verdict first, then how it came about."""

from __future__ import annotations

import json
import os

from shellgate.approval.requirement import Forbidden, NeedsApproval, Skip
from shellgate.explain.model import DecidedBy, Explanation, Parse, RuleHit, Segment
from shellgate.shell.quote import try_join

_MAX_CMD = 40


def render_text(ex: Explanation) -> str:
    lines = [_verdict(ex), ""]
    ctx = ex.context
    rows: list[tuple[str, str]] = [
        ("command", _q(ex.command)),
        (
            "context",
            f"approval {ctx.approval_policy.label()}, sandbox {ctx.sandbox.value}, "
            f"{ctx.sandbox_permissions.value}",
        ),
    ]
    if ex.session is not None and (ex.session.clamped or ex.session.deny_read):
        asked = ex.session
        rows.append((
            "requirements",
            f"asked for approval {asked.requested_approval.label()}, sandbox "
            f"{asked.requested_sandbox.value}; the admin's requirements allow what is above"
            + ("; reads denied: " + ", ".join(asked.deny_read) if asked.deny_read else ""),
        ))  # fmt: skip
        rows.extend(("warning", w) for w in asked.warnings)
    if ctx.justification:
        rows.append(("justification", ctx.justification))
    if ex.project is not None and (ex.project.folders or ex.project.source == "flag"):
        rows.append(("project", ex.project.describe()))
    rows.append(("parsed as", _parsed(ex)))
    diff = ex.split_difference
    if diff is not None:
        rows.append(("Codex splits", " ; ".join(f"`{_q(c)}`" for c in diff.codex)))
        ran = "not known (bash's own grammar is not loaded)"
        rows.append(
            ("bash runs", ran if diff.bash is None else " ; ".join(f"`{c}`" for c in diff.bash))
        )
        rows.append(("why", diff.why))
    lines.extend(_pairs(rows))
    lines.append("")
    lines.extend(_segments(ex))
    lines.append("")
    lines.extend(_pairs(_outcome(ex)))
    if ex.warnings:
        lines.append("")
        lines.append("warnings (beyond Codex; its decision stands):")
        for w in ex.warnings:
            lines.append(f"  ! {w.message}")
    return "\n".join(lines) + "\n"


def _q(words: tuple[str, ...] | list[str]) -> str:
    joined: str = try_join(list(words))
    return joined


def _verdict(ex: Explanation) -> str:
    req = ex.requirement
    if isinstance(req, Forbidden):
        return f"REFUSED  {req.reason}"
    if isinstance(req, NeedsApproval):
        if req.one_shot:
            return "ASKS     once, accept or cancel only, before it runs"
        return "ASKS     before it runs" + (f": {req.reason}" if req.reason else "")
    first = ex.first_attempt
    if first is not None and not first.sandboxed:
        if req.bypass_sandbox:
            return "ALLOWED  runs OUTSIDE the sandbox without asking (all allowed by rules)"
        return "ALLOWED  runs without asking, unsandboxed"
    return "ALLOWED  runs in the sandbox without asking"


def _parsed(ex: Explanation) -> str:
    n = len(ex.segments)
    if ex.parse is Parse.PLAIN:
        shell = os.path.basename(ex.shell or "shell")
        return f"{n} command{'s' if n != 1 else ''} split from a plain {shell} script"
    if ex.split_difference is not None:
        return (
            "one command: the whole argv (Codex splits the script, but bash would not run "
            "those commands; beyond Codex)"
        )
    if ex.script is not None:
        return "one command: the whole argv (the script is not plain, Codex does not split it)"
    return "one command"


def _segments(ex: Explanation) -> list[str]:
    cmds = [_short(_q(s.command)) for s in ex.segments]
    width = max(len(c) for c in [*cmds, "command"])  # a short command: the header's width
    head = "  #  " + "command".ljust(width) + "  decision   decided by"
    lines = [head]
    if ex.decision is None:
        lines.insert(0, "  (what rules and heuristics would say: Codex refused before asking them)")
    pad = " " * (5 + width + 2 + 11)
    for i, (seg, cmd) in enumerate(zip(ex.segments, cmds, strict=True), 1):
        first, *more = _reasons(seg)
        lines.append(f"  {i:<2} {cmd.ljust(width)}  {seg.decision.value:<9}  {first}")
        lines.extend(pad + m for m in more)
    return lines


def _short(text: str) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= _MAX_CMD else text[: _MAX_CMD - 1] + "…"


def _reasons(seg: Segment) -> list[str]:
    out = [_rule(h) for h in seg.rules]
    if seg.heuristic is not None:
        h = seg.heuristic
        out.append(f"heuristics: {h.why}")
    if seg.known_safe:
        out[-1] += " (known safe)" if out else ""
    return out or ["nothing"]


def _home(path: str) -> str:
    home = os.environ.get("HOME")  # what expanduser("~") gives, without its slower path
    home = os.path.expanduser("~") if home is None else (home.rstrip("/") or "/")
    if home not in ("", "/") and path.startswith(home + "/"):
        return "~" + path[len(home) :]
    return path


def _rule(h: RuleHit) -> str:
    where = _home(h.location) if h.location else "(built in)"
    layer = f" [{h.layer}]" if h.layer else ""
    via = f" via {h.resolved_program}" if h.resolved_program else ""
    just = f": {h.justification}" if h.justification else ""
    return f"rule {where}{layer} `{_q(h.matched_prefix)}`{via} {h.decision.value}{just}"


def _outcome(ex: Explanation) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    if ex.decision is None:
        rows.append(("decision", "none: refused before any rule was consulted"))
    else:
        by = {
            DecidedBy.RULES: "by rules",
            DecidedBy.HEURISTICS: "by heuristics",
            DecidedBy.RULES_AND_HEURISTICS: "by rules and heuristics",
            DecidedBy.ESCALATION_CHECK: "by the escalation check",
        }[ex.decided_by]
        rows.append(("decision", f"{ex.decision.value} ({by}; the strictest wins)"))
    req = ex.requirement
    if isinstance(req, Skip):
        rows.append(("requirement", f"skip (bypass_sandbox {str(req.bypass_sandbox).lower()})"))
    elif isinstance(req, NeedsApproval):
        offered = ", ".join(d.wire for d in req.available_decisions)
        rows.append(("requirement", f"needs approval, offering {offered}"))
        rows.append(("reason", req.reason or "none given"))
    else:
        rows.append(("requirement", "forbidden"))
        rows.append(("reason", req.reason))
    if not isinstance(req, Forbidden):
        amendment = req.proposed_execpolicy_amendment
        if amendment is None:
            rows.append(("amendment", "none"))
        else:
            rule = f'prefix_rule(pattern={_pattern(amendment)}, decision="allow")'
            if isinstance(req, Skip):
                text = f"{rule} (offered only if a failed sandboxed run asks to retry)"
            else:
                text = f'"don\'t ask again" adds {rule}'
            rows.append(("amendment", text))
    first = ex.first_attempt
    if first is None:
        rows.append(("first run", "never runs"))
    else:
        rows.append(("first run", "in the sandbox" if first.sandboxed else "outside the sandbox"))
    return rows


def _pattern(words: tuple[str, ...]) -> str:

    return "[" + ", ".join(json.dumps(w, ensure_ascii=False) for w in words) + "]"


def _pairs(rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(k) for k, _ in rows)
    return [f"{k.ljust(width)}  {v}" for k, v in rows]
