"""What one attempt may do beyond the configured sandbox, and the narrowest widening that lets
a denied write through (an extra writable folder rather than no sandbox)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

from shellgate.approval.context import SandboxMode
from shellgate.exec.sandbox import FsAccess, SandboxSetupError, build_spec


@dataclass(frozen=True)
class Grant:
    """What one attempt may do beyond the configured sandbox."""

    no_sandbox: bool = False
    extra_roots: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.no_sandbox:
            return "no sandbox"
        parts = ["sandbox"]
        parts += [f"writable {r}" for r in self.extra_roots]
        parts += [f"host {h}" for h in self.hosts]
        return " + ".join(parts)


def narrower_grant(
    grant: Grant, paths: Sequence[str], cwd: str, sandbox: SandboxMode,
    writable_roots: Sequence[str],
) -> Grant | None:  # fmt: skip
    """An extra writable directory for a denied path outside every root, if that helps."""
    if grant.no_sandbox or sandbox is not SandboxMode.WORKSPACE_WRITE:
        return None
    try:
        spec = build_spec(
            FsAccess.WORKSPACE_WRITE,
            cwd,
            extra_roots=(*writable_roots, *grant.extra_roots),
        )
    except SandboxSetupError:
        return None
    roots: list[str] = []
    for raw in paths:
        path = os.path.realpath(os.path.join(cwd, raw))
        if any(path == p.path or path.startswith(p.path + "/") for p in spec.protected):
            return None  # .git and friends: only "no sandbox" would help
        if any(path.startswith(r.rstrip("/") + "/") for r in spec.writable_roots):
            return None
        parent = os.path.dirname(path)
        while parent != "/" and not os.path.isdir(parent):
            parent = os.path.dirname(parent)
        if parent == "/":
            return None
        roots.append(parent)
    if not roots:
        return None
    return replace(grant, extra_roots=(*grant.extra_roots, *dict.fromkeys(roots)))
