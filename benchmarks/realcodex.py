"""Where the benchmarks find the real Codex: `$CODEX_BIN` when set, else the native binaries of
the versions `scripts/install-agents.sh` pins, where `tests/realtools.py` (the tests' finder)
says they are. Not a benchmark itself (run_all.sh runs `bench_*.py` only)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import realtools  # noqa: E402  (one list of pinned versions and paths, shared with the tests)

CODEX_VERSIONS = realtools.CODEX_VERSIONS


def codex_binaries() -> list[tuple[str, Path]]:
    """(version, path) of each installed Codex, the first pinned version first."""
    env = os.environ.get("CODEX_BIN")
    if env:
        path = Path(env)
        return [(version_of(path), path)] if is_executable(path) else []
    found = [(v, realtools.codex_path(v)) for v in CODEX_VERSIONS]
    return [(v, p) for v, p in found if is_executable(p)]


def is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def version_of(path: Path) -> str:
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=False)
    return out.stdout.strip().rsplit(" ", 1)[-1] or "unknown version"


def missing_message() -> str:
    if os.environ.get("CODEX_BIN"):
        return f"$CODEX_BIN={os.environ['CODEX_BIN']} is not an executable file"
    return f"no Codex under {realtools.TOOLS}: run scripts/install-agents.sh (or set $CODEX_BIN)"
