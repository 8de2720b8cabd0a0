"""`deny_read` from Codex's requirements (`[permissions.filesystem] deny_read` in
/etc/codex/requirements.toml): paths and globs no sandboxed command may read, for every agent.

Each entry is an absolute path or a glob (a relative one resolves against /etc/codex, as in
Codex); the sandbox masks what they match when it is built: a directory with an empty tmpfs of
mode 000, a file with an empty file of mode 000, so a read fails with `Permission denied` (the
command runs with no capabilities, so no mode is overridden). A file created after the sandbox
started is not masked, nor a hard link elsewhere to a denied file.

Codex's clamp: with deny_read present a requested danger-full-access runs read-only, an allow
rule no longer takes a command out of the sandbox, and no "retry without the sandbox" is
offered (spec/managed-tier.md).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable

from shellgate.codexconfig import SYSTEM_FOLDER as SYSTEM_DIR

REQUIREMENTS = os.path.join(SYSTEM_DIR, "requirements.toml")


def managed_deny_read(system_dir: str = SYSTEM_DIR) -> tuple[str, ...]:
    """The deny_read entries of the system requirements (none when there is no file), relative
    ones already resolved against the system folder. Raises RequirementsError as Codex stops."""
    if not os.path.lexists(os.path.join(system_dir, "requirements.toml")):
        return ()  # the usual case, and on the hook's hot path: nothing imported
    from pathlib import Path

    # deferred: requirements and tomllib (~25 ms) only when the file exists
    from shellgate.codexconfig.requirements import load_requirements

    req = load_requirements(Path(system_dir))
    return req.deny_read if req is not None else ()


def resolve(entries: Iterable[str], base: str = SYSTEM_DIR) -> tuple[str, ...]:
    """The existing paths the entries name now, real (symlinks followed), parents first."""
    found: list[str] = []
    for entry in entries:
        pattern = entry if os.path.isabs(entry) else os.path.join(base, entry)
        matches = glob.glob(pattern, recursive=True) if glob.has_magic(pattern) else [pattern]
        for m in matches:
            # Both the name and where it leads: a symlink's target is what holds the data.
            for p in (os.path.abspath(m), os.path.realpath(m)):
                if os.path.lexists(p) and not os.path.islink(p) and p not in found:
                    found.append(p)
    # A path under an already masked directory needs no mask of its own (and could not get
    # one: its parent is an empty tmpfs in the sandbox).
    out: list[str] = []
    for p in sorted(found, key=len):
        if not any(p.startswith(d.rstrip("/") + "/") for d in out):
            out.append(p)
    return tuple(out)
