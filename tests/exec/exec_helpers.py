"""Helpers and fixtures for real sandbox attempts: a git workspace, a directory outside every
writable root (/tmp is one, so it lives under /var/tmp), and the probed bubblewrap."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from shellgate.exec.probe import SandboxProbe, probe_sandbox
from shellgate.exec.runner import AttemptResult, run_attempt
from shellgate.exec.sandbox import FsAccess, NetworkAccess, build_spec, locate_bwrap

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(scope="session")
def probe() -> SandboxProbe:
    p = probe_sandbox()
    wanted = os.environ.get("SHELLGATE_TEST_BWRAP_SOURCE")  # scripts/test.sh's run without bwrap
    if wanted:
        found = locate_bwrap(exclude_under=[os.getcwd()])
        assert found is not None and found.source == wanted, (found, wanted)
        assert p.ok, p.reason  # that run exists to prove this bwrap works: never a skip
    if not p.ok:
        pytest.skip(f"no working sandbox on this machine: {p.reason}")
    return p


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / "README").write_text("hello\n")
    git(ws, "add", "README")
    git(ws, "commit", "-q", "-m", "first")
    return ws


@pytest.fixture
def outside() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="shellgate-outside-", dir="/var/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run_in(
    probe: SandboxProbe,
    cwd: Path,
    command: Sequence[str],
    *,
    fs: FsAccess = FsAccess.WORKSPACE_WRITE,
    network: NetworkAccess = NetworkAccess.OFF,
    timeout: float = 30,
    **kw: object,
) -> AttemptResult:
    spec = build_spec(fs, str(cwd), network=network)
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    return asyncio.run(
        run_attempt(command, cwd=str(cwd), env=env, spec=spec, probe=probe, timeout=timeout, **kw)  # type: ignore[arg-type]
    )


class Listener:
    """A TCP listener on 127.0.0.1 in this process: answers `hello` (a "remote" for tests)."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"hello\n")

    def close(self) -> None:
        import contextlib
        import socket

        self._stop = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        self.sock.close()
        self.thread.join(5)


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


class WebServer:
    """A tiny HTTP server on 127.0.0.1 whose pages say `secret-page`."""

    def __init__(self) -> None:
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = b"secret-page"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def web() -> Iterator[WebServer]:
    srv = WebServer()
    yield srv
    srv.close()
