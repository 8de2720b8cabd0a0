"""The session's memory of "yes, and don't ask again for this command in this session" (C.7).

Keys are Codex's: the JSON of {command: canonical argv, cwd, sandbox_permissions,
additional_permissions}, so that `bash -lc 'ls'` and `ls` share an approval when Codex's
canonicalisation says they are the same command.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from shellgate.approval.context import SandboxPermissions
from shellgate.approval.review import ReviewDecision
from shellgate.shell.canonical import canonicalize_command_for_approval


def shell_approval_key(
    argv: Sequence[str],
    cwd: str,
    permissions: SandboxPermissions = SandboxPermissions.USE_DEFAULT,
    additional_permissions: object = None,
) -> str:
    command: list[str] = list(canonicalize_command_for_approval(list(argv)))
    return json.dumps(
        {
            "command": command,
            "cwd": cwd,
            "sandbox_permissions": permissions.value,
            "additional_permissions": additional_permissions,
        },
        separators=(",", ":"),
        sort_keys=True,
    )


class ApprovalStore:
    """Per-session; not shared between sessions, not persisted."""

    __slots__ = ("_decisions",)

    def __init__(self) -> None:
        self._decisions: dict[str, ReviewDecision] = {}

    def get(self, key: str) -> ReviewDecision | None:
        return self._decisions.get(key)

    def put(self, key: str, decision: ReviewDecision) -> None:
        self._decisions[key] = decision

    def lookup(self, keys: Iterable[str]) -> ReviewDecision | None:
        """APPROVED_FOR_SESSION when every key was approved for the session: skip the question."""
        keys = list(keys)
        if keys and all(
            self._decisions.get(k) is ReviewDecision.APPROVED_FOR_SESSION for k in keys
        ):
            return ReviewDecision.APPROVED_FOR_SESSION
        return None

    def remember(self, keys: Iterable[str], decision: ReviewDecision) -> None:
        """Only a session-wide approval is remembered, for every key of the request."""
        if decision is ReviewDecision.APPROVED_FOR_SESSION:
            for k in keys:
                self._decisions[k] = decision

    def __len__(self) -> int:
        return len(self._decisions)
