"""The language server as the .vsix ships it: vscode-client/bundled/tool/serve.py with the
libraries `npm run package` bundled per Python version, started by each such Python found on
this machine (it must load a rules document and explain a script: the compiled Starlark and
tree-sitter wheels at work), and by a Python with no bundle (a clear message)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
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


RULES = 'prefix_rule(pattern = ["git", "push"], decision = "forbidden", justification = "no")\n'


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _start(python: str) -> subprocess.CompletedProcess[bytes]:
    """initialize; a rules document (Starlark; a draft: no workspace holds it); shellgate/explain
    of a script (tree-sitter) from that document -> the answers, read until the explain reply
    (id 2) arrives."""
    uri = "file:///tmp/shellgate-bundle-test/.codex/rules/a.rules"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "codex-rules", "version": 1,
                                     "text": RULES}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shellgate/explain",
         "params": {"command": "ls && git push origin main", "uri": uri}},
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.Popen(
        [python, "-I", str(SERVE)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(_frame(m) for m in messages))
    proc.stdin.flush()
    out = b""
    watchdog = threading.Timer(60, proc.kill)  # a silent server fails the test, never hangs it
    watchdog.start()
    try:
        while b'"id": 2' not in out and b'"id":2' not in out:
            length = None
            while (header := proc.stdout.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            if length is None:
                break  # the server ended: its stderr says why
            out += proc.stdout.read(length) + b"\n"
    finally:
        watchdog.cancel()
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else b""
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_each_bundled_python_starts_the_server() -> None:
    started = []
    for version in _bundled():
        python = _python(version)
        if python is None:
            continue
        proc = _start(python)
        assert b'"capabilities"' in proc.stdout, proc.stderr.decode()
        explained = [json.loads(line) for line in proc.stdout.splitlines() if b'"id"' in line]
        answer = next(m for m in explained if m.get("id") == 2)
        assert answer["result"]["decision"] == "forbidden", answer
        assert [s["command"] for s in answer["result"]["segments"]] == [
            ["ls"],
            ["git", "push", "origin", "main"],
        ]
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
