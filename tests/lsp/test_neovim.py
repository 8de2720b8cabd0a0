"""A real, independent LSP client: headless Neovim (Debian's `neovim`, installed by .ci/run)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "nvim" / "e2e.lua"
RULES = """prefix_rule(
    pattern = ["git", "push"],
    decision = "deny",
    justification = "publishing needs a human",
    match = ["git push origin main"],
)
# check: git push --force
"""


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim not installed (.ci/run installs it)")
def test_headless_neovim(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    (home / "rules").mkdir(parents=True)
    rules = tmp_path / "policy.rules"
    rules.write_text(RULES)
    env = dict(os.environ, SG_PYTHON=sys.executable, SG_FILE=str(rules), SG_HOME=str(home))
    run = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ALL PASSED" in run.stdout
