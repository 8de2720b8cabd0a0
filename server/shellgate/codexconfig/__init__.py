"""Codex's configuration of a cwd, resolved once and passed down: the tiers (system
`/etc/codex`, user `$CODEX_HOME`, trusted projects, the session's flags), their config values
and rules files, and the admin's requirements (`requirements.py`). `resolve.py` resolves them;
this module says where the two fixed tiers live, and nothing else computes it.

Light on purpose (os only, no pathlib): the hook's decision memo reads these on its hot path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from shellgate.records import TYPE_CHECKING  # not typing: the hook's memo imports this module

if TYPE_CHECKING:
    from pathlib import Path

# The admin's tier. No environment variable moves it (Codex has none): a policy the user
# cannot switch off. Tests pass `system_dir` or bind a scratch folder over it in a private
# mount namespace.
SYSTEM_FOLDER = "/etc/codex"


def codex_home_folder(env: Mapping[str, str] | None = None) -> str:
    """The user's tier: `$CODEX_HOME`, else `~/.codex` (HOME from `env`, else the user's)."""
    env = os.environ if env is None else env
    home = env.get("CODEX_HOME")
    if home:
        return home
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".codex")


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    # deferred: pathlib (~9 ms) is not on the hook's remembered-decision path
    from pathlib import Path

    return Path(codex_home_folder(env))
