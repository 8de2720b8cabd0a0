"""Codex's patch safety (C.10) on real paths."""

from __future__ import annotations

import pytest

from shellgate.approval.context import ApprovalPolicy, SandboxMode
from shellgate.exec.patch import (
    EMPTY_PATCH,
    OUTSIDE_PROJECT,
    PatchSafety,
    PatchVerdict,
    assess_patch_safety,
)

WS = "/work/project"


def assess(
    paths: list[str],
    policy: str = "on-request",
    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE,
    **kw: object,
) -> PatchSafety:
    return assess_patch_safety(paths, cwd=WS, policy=ApprovalPolicy.parse(policy), mode=mode,
                               **kw)  # type: ignore[arg-type]  # fmt: skip


def test_empty_patch_is_rejected_under_every_policy() -> None:
    for policy in ("untrusted", "on-request", "on-failure", "never"):
        assert assess([], policy) == PatchSafety(PatchVerdict.REJECT, reason=EMPTY_PATCH)


def test_untrusted_always_asks() -> None:
    assert assess(["src/a.py"], "untrusted").verdict is PatchVerdict.ASK_USER


@pytest.mark.parametrize("policy", ["on-request", "never"])
def test_writes_inside_the_roots_run_sandboxed(policy: str) -> None:
    got = assess(["src/a.py", "../project/b.py", "/tmp/scratch"], policy)
    assert got == PatchSafety(PatchVerdict.AUTO_APPROVE, sandboxed=True)


def test_outside_asks_or_is_rejected_under_never() -> None:
    assert assess(["../other/a.py"]).verdict is PatchVerdict.ASK_USER
    assert assess(["/etc/passwd"], "never") == PatchSafety(
        PatchVerdict.REJECT, reason=OUTSIDE_PROJECT
    )


def test_protected_names_are_not_writable_roots() -> None:
    assert assess([".git/hooks/pre-commit"]).verdict is PatchVerdict.ASK_USER
    assert assess(["sub/.git/config"]).verdict is PatchVerdict.AUTO_APPROVE  # only at a root


def test_modes_and_configured_roots() -> None:
    assert assess(["a.py"], mode=SandboxMode.READ_ONLY).verdict is PatchVerdict.ASK_USER
    full = assess(["/etc/x"], mode=SandboxMode.DANGER_FULL_ACCESS)
    assert full == PatchSafety(PatchVerdict.AUTO_APPROVE, sandboxed=False)
    assert assess(["/data/x"], writable_roots=["/data"]).verdict is PatchVerdict.AUTO_APPROVE
    assert assess(["/etc/x"], "on-failure").verdict is PatchVerdict.AUTO_APPROVE
    assert assess(["a.py"], sandbox_available=False).verdict is PatchVerdict.ASK_USER

