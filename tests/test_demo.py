"""`scripts/demo.sh` as a newcomer runs it: it leaves nothing in the temporary folder, and its
closing words say what happened when the question about `find` was answered no."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_cleans_up_and_says_what_happened(tmp_path: Path) -> None:
    tmp, state = tmp_path / "tmp", tmp_path / "state"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "XDG_STATE_HOME": str(state)}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")], input="d\n", env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "No, continue without running it" in out  # the `d` answer: find did not run
    assert "looked for .tmp files" not in out
    assert "asked to look for .tmp files (your answer decided whether find ran)" in out
    assert list(tmp.iterdir()) == []  # the Codex home and the workspace are gone
