"""The extension's pure TypeScript logic under Node's test runner (`npm test` in vscode-client/):
which files are Codex rules, the command at the cursor, the approval dialog's text, the trace."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parent.parent.parent / "vscode-client"


def test_client_unit_tests() -> None:
    if not (CLIENT / "node_modules" / "esbuild").exists() or shutil.which("npm") is None:
        message = "vscode-client not installed: cd vscode-client && npm ci"
        if os.environ.get("SHELLGATE_E2E") == "1":
            pytest.fail(message)
        pytest.skip(message)
    proc = subprocess.run(
        ["npm", "test", "--silent"], cwd=CLIENT, capture_output=True, text=True, timeout=120
    )
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert "# fail 0" in proc.stdout and "# pass 0" not in proc.stdout, report
