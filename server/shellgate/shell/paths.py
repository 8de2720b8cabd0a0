"""Rust `std::path::Path` semantics that Codex's classifiers depend on (Unix flavour)."""

from __future__ import annotations


def path_components(path: str) -> list[str]:
    """`Path::components()`: root, a leading `.`, `..` and normal parts; other `.` and
    empty parts vanish (so `cat/` is one component and `./cat` two)."""
    if "/" not in path:  # a bare name (a leading `.` is kept): one part, none when empty
        return [path] if path else []
    parts: list[str] = []
    if path.startswith("/"):
        parts.append("/")
    for i, piece in enumerate(path.split("/")):
        if piece == "" or (piece == "." and (i != 0 or path.startswith("/"))):
            continue
        parts.append(piece)
    return parts


def file_name(path: str) -> str | None:
    """`Path::file_name()`: the last normal component, None for `/`, `.`, `..`, ``."""
    if "/" not in path:
        return None if path in ("", ".", "..") else path
    comps = path_components(path)
    if not comps:
        return None
    last = comps[-1]
    return None if last in ("/", ".", "..") else last


def executable_name_lookup_key(raw: str, *, windows: bool = False) -> str | None:
    """The program name Codex's classifiers compare: the basename; on Windows also
    lower-cased with `.exe/.cmd/.bat/.com` removed."""
    name = file_name(raw.replace("\\", "/") if windows else raw)
    if name is None or not windows:
        return name
    name = name.lower()
    for suffix in (".exe", ".cmd", ".bat", ".com"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
