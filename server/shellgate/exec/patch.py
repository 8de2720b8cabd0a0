"""Patch safety (Codex's `assess_patch_safety`, spec C.10): may an edit run without asking?

An empty patch is rejected. Under untrusted the user is asked. Otherwise, when every written
path (added, deleted, updated, move destination), taken against the cwd, lies in a writable root
and outside its protected names (`.git`, `.codex`, `.agents`), the patch is approved to run in
the sandbox (or unsandboxed under full access); without a working sandbox the user is asked.
Anything else is refused under `never` and asked about otherwise.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from dataclasses import dataclass

from shellgate.approval.context import ApprovalPolicy, ApprovalPolicyKind, SandboxMode
from shellgate.exec.sandbox import PROTECTED_NAMES

EMPTY_PATCH = "empty patch"
OUTSIDE_PROJECT = "writing outside of the project; rejected by user approval settings"


class PatchVerdict(enum.Enum):
    AUTO_APPROVE = "auto-approve"
    ASK_USER = "ask-user"
    REJECT = "reject"


@dataclass(frozen=True)
class PatchSafety:
    verdict: PatchVerdict
    sandboxed: bool = True  # for AUTO_APPROVE: run the edit inside the sandbox
    reason: str | None = None


def _writable_roots(mode: SandboxMode, cwd: str, extra: Sequence[str]) -> list[str] | None:
    """None means everything is writable."""
    if mode in (SandboxMode.DANGER_FULL_ACCESS, SandboxMode.EXTERNAL_SANDBOX):
        return None
    if mode is SandboxMode.READ_ONLY:
        return []
    roots = [cwd, *extra, "/tmp"]
    if os.environ.get("TMPDIR"):
        roots.append(os.environ["TMPDIR"])
    return [os.path.normpath(os.path.join(cwd, r)) for r in roots]


def _writable(path: str, roots: list[str]) -> bool:
    for root in roots:
        if path != root and not path.startswith(root.rstrip("/") + "/"):
            continue
        rel = os.path.relpath(path, root).split(os.sep)
        if rel[0] not in PROTECTED_NAMES:
            return True
    return False


def assess_patch_safety(
    paths: Sequence[str],
    *,
    cwd: str,
    policy: ApprovalPolicy,
    mode: SandboxMode,
    writable_roots: Sequence[str] = (),
    sandbox_available: bool = True,
) -> PatchSafety:
    if not paths:
        return PatchSafety(PatchVerdict.REJECT, reason=EMPTY_PATCH)
    if policy.kind is ApprovalPolicyKind.UNTRUSTED:
        return PatchSafety(PatchVerdict.ASK_USER)
    roots = _writable_roots(mode, cwd, writable_roots)
    absolute = [os.path.normpath(os.path.join(cwd, p)) for p in paths]
    constrained = roots is None or all(_writable(p, roots) for p in absolute)
    if constrained or policy.kind is ApprovalPolicyKind.ON_FAILURE:
        if roots is None:
            return PatchSafety(PatchVerdict.AUTO_APPROVE, sandboxed=False)
        if not sandbox_available:
            return PatchSafety(PatchVerdict.ASK_USER, reason="the sandbox is unavailable")
        return PatchSafety(PatchVerdict.AUTO_APPROVE, sandboxed=True)
    if policy.kind is ApprovalPolicyKind.NEVER:
        return PatchSafety(PatchVerdict.REJECT, reason=OUTSIDE_PROJECT)
    return PatchSafety(PatchVerdict.ASK_USER)
