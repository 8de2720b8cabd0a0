"""Kill a whole process tree: the process group plus every descendant found in /proc.

Under bwrap this is belt and braces (killing bwrap tears down its pid namespace); without a
sandbox it is what stops a command's children from outliving a timeout or a cancel.
"""

from __future__ import annotations

import contextlib
import os
import signal


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may contain spaces and parentheses: fields start after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        kids.setdefault(int(fields[1]), []).append(int(entry))
    return kids


def descendants(pid: int) -> list[int]:
    kids = _children_map()
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(pid: int) -> None:
    """SIGKILL the group led by pid, pid itself and all its descendants (stopped first)."""
    tree = descendants(pid)
    for p in [pid, *tree]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(p, signal.SIGSTOP)  # no new forks while we collect
    tree = list(dict.fromkeys([*tree, *descendants(pid)]))
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    for p in [pid, *tree]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(p, signal.SIGKILL)
