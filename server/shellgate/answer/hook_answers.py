"""What a Codex hook's answer means, event by event, in Codex's words (spec
codex-hooks-chain.md §4 and §6), and how several hooks' answers combine.

Each run gets Codex's status (`completed`, `blocked`, `failed`, `stopped`) and its text. Where
Codex treats a `failed` run as if the hook had not answered (fail open), the caller asks the
person instead; `failed` here is exactly Codex's list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shellgate.answer.hook_process import Finished
from shellgate.approval.answerers import After, Before, HookNote

COMPLETED, BLOCKED, FAILED, STOPPED = "completed", "blocked", "failed", "stopped"
UNSUPPORTED = "PreToolUse hook returned unsupported permissionDecision:"
UNSUPPORTED_ALLOW = UNSUPPORTED + "allow"


@dataclass(frozen=True)
class Read:
    """One run, read."""

    status: str
    text: str | None = None  # feedback (blocked), error (failed), stop text (stopped)
    rewrite: str | None = None  # PreToolUse: updatedInput.command with allow
    context: str | None = None  # additionalContext
    allow: bool = False  # PermissionRequest: behavior allow
    replace: str | None = None  # PostToolUse: what the model reads instead of the output
    asks: bool = False  # PreToolUse `ask`: unsupported in Codex; ShellGate asks the person


def _common(run: Finished, event: str) -> Read | dict[str, Any] | None:
    """Exit codes, timeouts and JSON: a Read when that decides, else the JSON object (None:
    no JSON, a quiet or plain-text answer)."""
    if run.error is not None:
        return Read(FAILED, run.error)
    if run.exit_code == 2:
        reason = run.stderr.strip()
        if not reason:
            return Read(FAILED, "hook exited with code 2 but did not write a blocking reason "
                                "to stderr")  # fmt: skip
        return Read(BLOCKED, reason)
    if run.exit_code != 0:
        return Read(FAILED, f"hook exited with code {run.exit_code}")
    out = run.stdout.strip()
    if not out.startswith(("{", "[")):
        return None  # quiet, or plain text: Codex goes on
    try:
        data = json.loads(out)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        label = {"PreToolUse": "pre-tool-use", "PermissionRequest": "permission-request",
                 "PostToolUse": "post-tool-use"}[event]  # fmt: skip
        return Read(FAILED, f"hook returned invalid {label} JSON output")
    return data


def _specific(data: Mapping[str, Any]) -> Mapping[str, Any]:
    found = data.get("hookSpecificOutput")
    return found if isinstance(found, dict) else {}


def read_pre(run: Finished) -> Read:
    found = _common(run, "PreToolUse")
    if not isinstance(found, dict):
        return found or Read(COMPLETED)
    if found.get("decision") == "block":
        reason = found.get("reason")
        if isinstance(reason, str) and reason.strip():
            return Read(BLOCKED, reason)
        return Read(FAILED, "PreToolUse hook returned decision:block without a non-empty reason")
    spec = _specific(found)
    decision, reason = spec.get("permissionDecision"), spec.get("permissionDecisionReason")
    context = spec.get("additionalContext") if isinstance(spec.get("additionalContext"), str) \
        else None
    updated = spec.get("updatedInput")
    if decision == "deny":
        if isinstance(reason, str) and reason.strip():
            return Read(BLOCKED, reason, context=context)
        return Read(FAILED, "PreToolUse hook returned permissionDecision:deny without a "
                            "non-empty permissionDecisionReason")  # fmt: skip
    if updated is not None:
        if decision != "allow":
            return Read(FAILED, "PreToolUse hook returned updatedInput without "
                                "permissionDecision:allow")  # fmt: skip
        command = updated.get("command") if isinstance(updated, dict) else None
        if not isinstance(command, str) or not command.strip():
            return Read(FAILED, "PreToolUse hook returned updatedInput without a command")
        return Read(COMPLETED, rewrite=command, context=context)
    if decision in ("allow", "ask"):
        return Read(FAILED, f"{UNSUPPORTED}{decision}",
                    context=context, asks=decision == "ask")  # fmt: skip
    return Read(COMPLETED, context=context)


def read_permission(run: Finished) -> Read:
    found = _common(run, "PermissionRequest")
    if not isinstance(found, dict):
        return found or Read(COMPLETED)
    decision = _specific(found).get("decision")
    if not isinstance(decision, dict):
        return Read(COMPLETED)
    if "updatedInput" in decision or "interrupt" in decision:
        key = "updatedInput" if "updatedInput" in decision else "interrupt"
        return Read(FAILED, f"PermissionRequest hook returned unsupported {key}")
    behavior = decision.get("behavior")
    if behavior == "allow":
        return Read(COMPLETED, allow=True)
    if behavior == "deny":
        message = decision.get("message")
        if not isinstance(message, str) or not message:
            message = "PermissionRequest hook denied approval"
        return Read(BLOCKED, message)
    return Read(COMPLETED)


def read_post(run: Finished) -> Read:
    found = _common(run, "PostToolUse")
    if not isinstance(found, dict):
        if found is not None and found.status == BLOCKED:
            return Read(BLOCKED, found.text, replace=found.text)
        return found or Read(COMPLETED)
    spec = _specific(found)
    context = spec.get("additionalContext") if isinstance(spec.get("additionalContext"), str) \
        else None
    if "updatedMCPToolOutput" in spec:
        return Read(FAILED, "PostToolUse hook returned unsupported updatedMCPToolOutput")
    if found.get("continue") is False:
        stop = found.get("stopReason")
        reason = found.get("reason")
        text = reason if isinstance(reason, str) and reason else (
            stop if isinstance(stop, str) and stop else "PostToolUse hook stopped execution")
        return Read(STOPPED, stop if isinstance(stop, str) else None, replace=text,
                    context=context)  # fmt: skip
    if found.get("decision") == "block":
        reason = found.get("reason")
        if isinstance(reason, str) and reason:
            return Read(BLOCKED, reason, replace=reason, context=context)
    return Read(COMPLETED, context=context)


def _note(run: Finished, read: Read, event: str) -> HookNote:
    return HookNote(event, run.hook.source, run.hook.path, run.hook.command, read.status,
                    read.text or read.context, run.duration_ms)  # fmt: skip


def _asks_person(read: Read) -> bool:
    """A failed PreToolUse run makes ShellGate ask, except a bare `allow`: Codex rejects it
    and goes on, and so does ShellGate (the rules still decide)."""
    return read.status == FAILED and (read.asks or read.text != UNSUPPORTED_ALLOW)


def combine_pre(runs: Sequence[Finished]) -> Before:
    """Any block wins (the first declared hook's reason); else the last finishing rewrite
    (ShellGate asks the person when two hooks rewrite differently: Codex races them); a
    failed run asks the person."""
    reads = [read_pre(r) for r in runs]
    notes = tuple(_note(r, d, "PreToolUse") for r, d in zip(runs, reads, strict=True))
    context = tuple(d.context for d in reads if d.context)
    blocked = next((d.text for d in reads if d.status == BLOCKED), None)
    if blocked is not None:
        return Before(blocked=blocked, context=context, runs=notes)
    failed = [(r, d) for r, d in zip(runs, reads, strict=True) if _asks_person(d)]
    rewrites = {d.rewrite for d in reads if d.rewrite is not None}
    ask = None
    if failed:
        run, read = failed[0]
        ask = (f"the PreToolUse hook `{run.hook.command}` ({run.hook.source}) failed: "
               f"{read.text}; Codex would run the command as if it had not answered, "
               "ShellGate asks you")  # fmt: skip
    elif len(rewrites) > 1:
        ask = ("two PreToolUse hooks rewrote the command differently ("
               + ", ".join(f"`{c}`" for c in sorted(rewrites)) + "); ShellGate asks you")
    rewrite = None
    if len(rewrites) == 1:
        rewrite = next(iter(rewrites))
    return Before(command=rewrite if ask is None else None, ask=ask, context=context,
                  runs=notes)  # fmt: skip


@dataclass(frozen=True)
class PermissionOutcome:
    allow: bool = False
    deny: str | None = None  # the message (Codex: Rejected("<message>"))
    failed: str | None = None  # why ShellGate asks the person instead
    source: str | None = None  # the deciding hook
    runs: tuple[HookNote, ...] = ()


def combine_permission(runs: Sequence[Finished]) -> PermissionOutcome:
    """A deny beats an allow (the first declared deny's message); one allow with quiet ones
    approves; a failed run, with no deny, asks the person."""
    reads = [read_permission(r) for r in runs]
    notes = tuple(_note(r, d, "PermissionRequest") for r, d in zip(runs, reads, strict=True))
    for run, read in zip(runs, reads, strict=True):
        if read.status == BLOCKED:
            return PermissionOutcome(deny=read.text, source=run.hook.name, runs=notes)
    for run, read in zip(runs, reads, strict=True):
        if read.status == FAILED:
            return PermissionOutcome(failed=(
                f"the PermissionRequest hook `{run.hook.command}` ({run.hook.source}) failed: "
                f"{read.text}; ShellGate asks you"), source=run.hook.name, runs=notes)  # fmt: skip
    for run, read in zip(runs, reads, strict=True):
        if read.allow:
            return PermissionOutcome(allow=True, source=run.hook.name, runs=notes)
    return PermissionOutcome(runs=notes)


def combine_post(runs: Sequence[Finished]) -> After:
    """The first declared hook that replaces the output decides what the model reads."""
    reads = [read_post(r) for r in runs]
    notes = tuple(_note(r, d, "PostToolUse") for r, d in zip(runs, reads, strict=True))
    output = next((d.replace for d in reads if d.replace is not None), None)
    return After(output, tuple(d.context for d in reads if d.context), notes)
