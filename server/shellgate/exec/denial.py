"""Tell a sandbox denial from an ordinary failure (spec/sandbox.md §6.5).

Signals, strongest first: bwrap's `--json-status-fd` (no `exit-code` record = the sandbox itself
failed, never a denial), the proxy's log (authoritative for the network: tools hide the errno),
"Read-only file system" (the host is writable, so EROFS under bwrap means our mount), SIGSYS,
then Codex's keyword heuristic. Only a denial leads to an escalation prompt.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

_QUOTES = "'\"`‘’“”"
_EROFS_PATH = re.compile(r"([^\s:]+): read-only file system")
_EROFS_PY = re.compile(r"read-only file system: '([^']+)'")
_CODEX_KEYWORDS = (
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "seccomp",
    "sandbox",
    "landlock",
    "failed to write file",
)
_SIGSYS = 128 + 31


class Outcome(enum.Enum):
    OK = "ok"
    FAILED = "failed"  # the command failed on its own: no prompt
    FS_DENIED = "fs-denied"
    NETWORK_DENIED = "network-denied"
    SECCOMP_DENIED = "seccomp-denied"
    MAYBE_DENIED = "maybe-denied"  # Codex's keyword heuristic; the user decides
    SANDBOX_ERROR = "sandbox-error"  # bwrap could not set up: report, never escalate silently
    TIMED_OUT = "timed-out"

    @property
    def is_denial(self) -> bool:
        return self in (
            Outcome.FS_DENIED,
            Outcome.NETWORK_DENIED,
            Outcome.SECCOMP_DENIED,
            Outcome.MAYBE_DENIED,
        )


@dataclass(frozen=True)
class Classification:
    outcome: Outcome
    # Denied paths as printed (maybe relative): a narrower retry adds one as a writable root.
    paths: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()  # blocked hosts, for a network prompt
    reason: str = ""


def classify(
    *,
    exit_code: int | None,
    output: str,
    sandboxed: bool,
    saw_exit_record: bool,
    blocked_hosts: Sequence[str] = (),
    timed_out: bool = False,
) -> Classification:
    if timed_out:
        return Classification(Outcome.TIMED_OUT, reason="command timed out")
    if sandboxed and not saw_exit_record:
        if "bwrap: execvp" in output:  # the program does not exist: an ordinary failure
            return Classification(Outcome.FAILED, reason="command not found")
        last = next((ln for ln in reversed(output.splitlines()) if ln.startswith("bwrap:")), "")
        return Classification(Outcome.SANDBOX_ERROR, reason=last or "the sandbox failed to start")
    if exit_code == 0:
        return Classification(Outcome.OK)
    if not sandboxed:
        return Classification(Outcome.FAILED)
    if blocked_hosts:
        hosts = tuple(dict.fromkeys(blocked_hosts))
        return Classification(
            Outcome.NETWORK_DENIED,
            hosts=hosts,
            reason=f'Network access to "{hosts[0]}" is blocked by policy.',
        )
    text = output.lower()
    if "read-only file system" in text:
        norm = _normalise(output)
        found = [*_EROFS_PATH.findall(norm), *_EROFS_PY.findall(norm)]
        paths = tuple(dict.fromkeys(p.strip(_QUOTES) for p in found if p.strip(_QUOTES)))
        where = f" ({', '.join(paths)})" if paths else ""
        return Classification(
            Outcome.FS_DENIED,
            paths=paths,
            reason=f"the sandbox denied a write: read-only file system{where}",
        )
    if exit_code == _SIGSYS:
        return Classification(
            Outcome.SECCOMP_DENIED, reason="the sandbox's seccomp filter stopped it"
        )
    if exit_code not in (2, 126, 127) and any(k in text for k in _CODEX_KEYWORDS):
        return Classification(Outcome.MAYBE_DENIED, reason="command failed; retry without sandbox?")
    return Classification(Outcome.FAILED)


def _normalise(output: str) -> str:
    """Match case-insensitively on the message but keep the path's own case."""
    return re.sub(r"(?i)read-only file system", "read-only file system", output)
