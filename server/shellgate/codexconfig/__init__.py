"""Codex's configuration of a cwd, resolved once and passed down: the tiers (system
`/etc/codex`, user `$CODEX_HOME`, trusted projects, the session's flags), their config values
and rules files, and the admin's requirements (`requirements.py`). `resolve.py` resolves them;
this module says where the two fixed tiers live, and nothing else computes it.

Light on purpose (no imports): the hook's hot path reads these two names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# The admin's tier. No environment variable moves it (Codex has none): a policy the user
# cannot switch off. Tests pass `system_dir` or bind a scratch folder over it in a private
# mount namespace.
SYSTEM_DIR = Path("/etc/codex")


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """The user's tier: `$CODEX_HOME`, else `~/.codex` (HOME from `env`)."""
    env = os.environ if env is None else env
    home = env.get("CODEX_HOME")
    if home:
        return Path(home)
    return Path(env.get("HOME") or Path.home()) / ".codex"
