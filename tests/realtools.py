"""Where the tests find the real agent CLIs that `scripts/install-agents.sh` installs.

`$SHELLGATE_TOOLS` (default `.tools/` in the checkout) holds one folder per pinned CLI. A test
that needs one calls `require(...)`: it skips when the CLI is absent, except in CI
(`SHELLGATE_E2E=1` or `CI`), where a missing CLI is a failure, never a silent skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(os.environ.get("SHELLGATE_TOOLS") or ROOT / ".tools")
CODEX_VERSIONS = ("0.169.0", "0.171.0")
_CODEX_NATIVE = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
_PATHS = {
    "claude": "claude/node_modules/.bin/claude",
    "gemini": "gemini/node_modules/.bin/gemini",
    # The native binary npm's loader would spawn; it runs from the package cache that
    # install-agents.sh unpacked (COPILOT_PKG_CACHE_HOME=copilot_cache()).
    "copilot": "copilot/node_modules/@github/copilot-linux-x64/copilot",
}


def _strict() -> bool:
    return bool(os.environ.get("SHELLGATE_E2E") or os.environ.get("CI"))


def codex_path(version: str) -> Path:
    """The native Codex binary (no Node wrapper: what a user's `codex` runs)."""
    return TOOLS / f"codex-{version}" / _CODEX_NATIVE


def tool_path(name: str) -> Path:
    return TOOLS / _PATHS[name]


def require(path: Path) -> Path:
    if path.exists():
        return path
    message = f"{path} is missing: run scripts/install-agents.sh"
    if _strict():
        pytest.fail(message)
    pytest.skip(message)


def _codex_named(name: str) -> Path:
    return codex_path(CODEX_VERSIONS[0] if name == "codex" else name.removeprefix("codex-"))


def needs(*names: str) -> pytest.MarkDecorator:
    """Mark a test that needs these CLIs ("claude", "gemini", "codex-0.169.0"): outside CI it
    skips before its fixtures start (a language server, a home), with the line saying what to
    install; in CI it runs and its `require` fails."""
    paths = [tool_path(n) if n in _PATHS else _codex_named(n) for n in names]
    missing = [p for p in paths if not p.exists()]
    reason = f"{missing[0] if missing else ''} is missing: run scripts/install-agents.sh"
    return pytest.mark.skipif(bool(missing) and not _strict(), reason=reason)


def codex(version: str = CODEX_VERSIONS[0]) -> Path:
    return warm(require(codex_path(version)))


_warm: set[Path] = set()


def warm(binary: Path) -> Path:
    """Read `binary` once per process: a 300 MB Codex the page cache has dropped takes 8-15 s
    to read from disk (more under load), which belongs outside any timed wait for an answer."""
    if binary not in _warm:
        with binary.open("rb") as fh:
            while fh.read(1 << 24):
                pass
        _warm.add(binary)
    return binary


def claude() -> Path:
    return require(tool_path("claude"))


def gemini() -> Path:
    return require(tool_path("gemini"))


def copilot() -> Path:
    require(copilot_cache() / "pkg")
    return require(tool_path("copilot"))


def copilot_cache() -> Path:
    return TOOLS / "copilot" / "pkgcache"
