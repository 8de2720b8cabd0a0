"""Codex's Windows-only checks (cmd.exe and PowerShell), runnable anywhere for tests.

Codex compiles these only into Windows builds; ShellGate calls them only when the caller
says `windows=True`. They are best-effort word scans, as in Codex, not parsers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from shellgate.shell.quote import split as rust_split

_DELETE_CMDLETS = frozenset({"remove-item", "ri", "rm", "del", "erase", "rd", "rmdir"})
_SEGMENT_SEPARATORS = frozenset(";|&\n\r\t")
_SOFT_SEPARATORS = re.compile(r"[{}()\[\],;]")
_BROWSERS = frozenset(
    {"chrome", "chrome.exe", "msedge", "msedge.exe", "firefox", "firefox.exe", "iexplore",
     "iexplore.exe"}
)  # fmt: skip
_URL_CORE = re.compile(r"""^[ "'(\s]*([^\s"');]+)[\s;)]*$""")
_CMD_SEPARATORS = frozenset({"&", "&&", "|", "||"})
_WRITING_CMDLETS = frozenset(
    {"set-content", "add-content", "out-file", "new-item", "remove-item", "move-item",
     "copy-item", "rename-item", "start-process", "stop-process"}
)  # fmt: skip
_SAFE_CMDLETS = frozenset(
    {"echo", "write-output", "write-host", "dir", "ls", "get-childitem", "gci", "cat", "type",
     "gc", "get-content", "select-string", "sls", "findstr", "measure-object", "measure",
     "get-location", "gl", "pwd", "test-path", "tp", "resolve-path", "rvpa", "select-object",
     "select", "get-item"}
)  # fmt: skip


def executable_basename(exe: str) -> str | None:
    name = re.split(r"[/\\]", exe)[-1]
    if len(name) >= 2 and name[1] == ":" and name[0].isascii() and name[0].isalpha():
        name = name[2:]
    return name.lower() or None


def is_powershell_executable(exe: str) -> bool:
    return executable_basename(exe) in ("powershell", "powershell.exe", "pwsh", "pwsh.exe")


def looks_like_url(token: str) -> bool:
    lower = token.lower()
    starts = [i for i in (lower.find("https://"), lower.find("http://")) if i >= 0]
    urlish = token[min(starts) :] if starts else token
    match = _URL_CORE.match(urlish)
    candidate = match.group(1) if match else urlish
    try:
        parts = urlsplit(candidate)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def _have_url(args: Sequence[str]) -> bool:
    return any(looks_like_url(a) for a in args)


def is_dangerous_command_windows(argv: Sequence[str]) -> bool:
    return _dangerous_powershell(argv) or _dangerous_cmd(argv) or _gui_launch(argv)


def is_dangerous_powershell_words(words: Sequence[str]) -> bool:
    lowered = [w.strip("'\"").lower() for w in words]
    has_url = _have_url(words)
    if has_url and any(
        t in ("start-process", "start", "saps", "invoke-item", "ii")
        or "start-process" in t
        or "invoke-item" in t
        for t in lowered
    ):
        return True
    if has_url and any("shellexecute" in t or "shell.application" in t for t in lowered):
        return True
    if lowered and has_url:
        first = lowered[0]
        if first == "rundll32" and any("url.dll,fileprotocolhandler" in t for t in lowered):
            return True
        if first == "mshta" or first in _BROWSERS or first in ("explorer", "explorer.exe"):
            return True
    return _force_delete_cmdlet(lowered)


def is_safe_powershell_words(words: Sequence[str]) -> bool:
    if not words:
        return False
    names = [w.strip("()").lstrip("-").lower() for w in words]
    if any(n in _WRITING_CMDLETS for n in names):
        return False
    command = names[0]
    if command in _SAFE_CMDLETS:
        return True
    if command == "rg":
        return not any(
            a.lower() in ("--search-zip", "-z")
            or any(
                a.lower() == o or a.lower().startswith(o + "=") for o in ("--pre", "--hostname-bin")
            )
            for a in words[1:]
        )
    return False  # git included: never provably safe


def _force_delete_cmdlet(tokens: Sequence[str]) -> bool:
    segments: list[list[str]] = [[]]
    for token in tokens:
        current = ""
        for ch in token:
            if ch in _SEGMENT_SEPARATORS:
                if current.strip():
                    segments[-1].append(current.strip())
                current = ""
                if segments[-1]:
                    segments.append([])
            else:
                current += ch
        if current.strip():
            segments[-1].append(current.strip())
    for segment in segments:
        atoms = [a.strip() for t in segment for a in _SOFT_SEPARATORS.split(t) if a.strip()]
        lowered = [a.lower() for a in atoms]
        has_delete = any(a in _DELETE_CMDLETS for a in lowered)
        has_force = any(a == "-force" or a.startswith("-force:") for a in lowered)
        if has_delete and has_force:
            return True
    return False


def _powershell_words(args: Sequence[str]) -> list[str] | None:
    for i, arg in enumerate(args):
        lower = arg.lower()
        if lower in ("-command", "/command", "-c"):
            return rust_split(args[i + 1]) if i + 2 == len(args) else None
        if lower.startswith(("-command:", "/command:")):
            return rust_split(arg.split(":", 1)[1]) if i + 1 == len(args) else None
        if lower.startswith("-"):
            continue
        return list(args[i:])
    return None


def _dangerous_powershell(argv: Sequence[str]) -> bool:
    if not argv or not is_powershell_executable(argv[0]):
        return False
    words = _powershell_words(argv[1:])
    return words is not None and is_dangerous_powershell_words(words)


def _split_cmd_operators(token: str) -> list[str]:
    parts = [p for p in re.split(r"(&&|\|\||&|\|)", token) if p.strip()]
    return parts


def _dangerous_cmd(argv: Sequence[str]) -> bool:
    if not argv or executable_basename(argv[0]) not in ("cmd", "cmd.exe"):
        return False
    rest = list(argv[1:])
    for i, arg in enumerate(rest):
        lower = arg.lower()
        if lower in ("/c", "/r", "-c"):
            remaining = rest[i + 1 :]
            break
        if not lower.startswith("/"):
            return False
    else:
        return False
    if not remaining:
        return False
    if len(remaining) == 1:
        remaining = rust_split(remaining[0]) or remaining
    tokens = [p for t in remaining for p in _split_cmd_operators(t)]
    segment: list[str] = []
    for token in [*tokens, "&"]:
        if token not in _CMD_SEPARATORS:
            segment.append(token)
            continue
        if segment and _dangerous_cmd_segment(segment):
            return True
        segment = []
    return False


def _dangerous_cmd_segment(segment: Sequence[str]) -> bool:
    cmd = segment[0].lower()
    flags = {a.lower() for a in segment}
    if cmd == "start" and _have_url(segment):
        return True
    if cmd in ("del", "erase") and "/f" in flags:
        return True
    return cmd in ("rd", "rmdir") and "/s" in flags and "/q" in flags


def _gui_launch(argv: Sequence[str]) -> bool:
    if not argv:
        return False
    base = executable_basename(argv[0])
    rest = argv[1:]
    if base is None or not _have_url(rest):
        return False
    if base in ("explorer", "explorer.exe", "mshta", "mshta.exe") or base in _BROWSERS:
        return True
    return base in ("rundll32", "rundll32.exe") and any(
        "url.dll,fileprotocolhandler" in t.lower() for t in rest
    )
