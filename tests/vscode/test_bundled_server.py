"""The language server as the .vsix ships it: vscode-client/bundled/tool/serve.py with the
libraries `npm run package` bundled per Python version, started by each such Python found on
this machine (it must answer `initialize`), and by a Python with no bundle (a clear message)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parent.parent.parent / "vscode-client"
LIBS = CLIENT / "bundled" / "libs"
SERVE = CLIENT / "bundled" / "tool" / "serve.py"


def _bundled() -> list[str]:
    dirs = LIBS.glob("cp3*") if LIBS.is_dir() else ()
    versions = sorted(f"{d.name[2]}.{d.name[3:]}" for d in dirs)
    if not versions:
        message = "no bundled libraries: cd vscode-client && npm run package"
        if os.environ.get("SHELLGATE_E2E") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return versions


def _python(version: str) -> str | None:
    """A working `pythonX.Y`: on PATH, or installed by pyenv (whose shims fail unless selected)."""
    root = os.environ.get("PYENV_ROOT")
    candidates = [shutil.which(f"python{version}")]
    if root:
        candidates += sorted(str(p) for p in Path(root).glob(f"versions/{version}.*/bin/python3"))
    for python in filter(None, candidates):
        code = "import sys; print('%d.%d' % sys.version_info[:2])"
        probe = subprocess.run([python, "-c", code], capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return python
    return None


def _start(python: str) -> subprocess.CompletedProcess[bytes]:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}}
    )  # fmt: skip
    message = f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [python, "-I", str(SERVE)], input=message, capture_output=True, timeout=60, env=env
    )


def test_each_bundled_python_starts_the_server() -> None:
    started = []
    for version in _bundled():
        python = _python(version)
        if python is None:
            continue
        proc = _start(python)
        assert b'"capabilities"' in proc.stdout, proc.stderr.decode()
        assert b'"name":"shellgate"' in proc.stdout.replace(b" ", b""), proc.stdout[:500]
        started.append(version)
    assert started, f"no Python among {_bundled()} on PATH"


def test_a_python_without_a_bundle_gets_a_clear_message() -> None:
    bundled = _bundled()
    others = [f"3.{m}" for m in range(8, 15) if f"3.{m}" not in bundled]
    python = next((p for v in others if (p := _python(v))), None)
    if python is None:
        pytest.skip(f"no Python other than {bundled} on PATH")
    proc = _start(python)
    err = proc.stderr.decode()
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    assert "shellgate: cannot start the language server with" in err
    assert "`shellgate.interpreter`" in err and ", ".join(bundled) in err
