"""Program paths as Codex resolves them for host-executable matching (no heavy imports: the
`check` command's warm path uses this)."""

from __future__ import annotations

import os


def absolute_program_path(program: str) -> str | None:
    """Codex's `AbsolutePathBuf::try_from` for a command's first token, lexically normalised:
    relative paths join the process cwd, `~` expands to $HOME. None when it cannot resolve."""
    if not program:
        return None
    if program == "~" or program.startswith("~/"):
        home = os.environ.get("HOME")
        if not home:
            return None
        program = home + program[1:]
    elif not program.startswith("/"):
        try:
            program = os.path.join(os.getcwd(), program)
        except OSError:
            return None
    return normalize_path(program)


def normalize_path(path: str) -> str:
    """Lexical normalisation of an absolute path: `//`, `.`, `..` and a trailing `/` go."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)
