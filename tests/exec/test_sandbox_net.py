"""The network inside the sandbox: cut, or by host through the allow-list proxy."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
from pathlib import Path

import pytest
from exec_helpers import Listener, WebServer, run_in

from shellgate.exec.denial import Outcome
from shellgate.exec.network import HostRules, NetworkProxy
from shellgate.exec.probe import SandboxProbe
from shellgate.exec.runner import run_attempt
from shellgate.exec.sandbox import FsAccess, NetworkAccess, build_spec

CONNECT = (
    "import socket,sys\n"
    "try:\n"
    "    s=socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=3)\n"
    "    print('CONNECTED', s.recv(10))\n"
    "except OSError as e:\n"
    "    print('FAILED', e.errno)\n"
)


def test_loopback_listener_reachable_outside_not_inside(
    probe: SandboxProbe, workspace: Path, listener: Listener
) -> None:
    with socket.create_connection(("127.0.0.1", listener.port), timeout=3) as s:
        assert s.recv(10) == b"hello\n"  # control: it is there
    r = run_in(probe, workspace, ["python3", "-c", CONNECT, str(listener.port)])
    assert r.stdout.startswith("FAILED 1"), r.stdout + r.stderr  # EPERM: the socket filter
    bash = run_in(probe, workspace, ["bash", "-c", f"echo hi > /dev/tcp/127.0.0.1/{listener.port}"])
    assert bash.exit_code != 0
    udp = run_in(
        probe,
        workspace,
        [
            "python3",
            "-c",
            "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
            ".sendto(b'x', ('127.0.0.1', 9))",
        ],
    )
    assert "Operation not permitted" in udp.stderr


def test_without_socket_filter_the_netns_is_still_empty(
    probe: SandboxProbe, workspace: Path, listener: Listener
) -> None:
    # Proxy mode allows AF_INET (for the bridge); the namespace has no route to the host.
    spec = build_spec(FsAccess.WORKSPACE_WRITE, str(workspace), network=NetworkAccess.PROXY)
    proxy = NetworkProxy(HostRules(), str(workspace.parent))
    r = asyncio.run(
        run_attempt(
            ["python3", "-c", CONNECT, str(listener.port)],
            cwd=str(workspace),
            spec=spec,
            probe=probe,
            proxy=proxy,
            timeout=30,
        )
    )
    assert r.stdout.startswith("FAILED 111"), r.stdout + r.stderr  # ECONNREFUSED: own loopback


def test_full_network_reaches_the_listener(
    probe: SandboxProbe, workspace: Path, listener: Listener
) -> None:
    r = run_in(
        probe, workspace, ["python3", "-c", CONNECT, str(listener.port)], network=NetworkAccess.FULL
    )
    assert r.stdout.startswith("CONNECTED"), r.stdout + r.stderr


@pytest.mark.skipif(
    shutil.which("socat") is None or shutil.which("curl") is None,
    reason="the bridge needs socat; the test uses curl",
)
def test_proxy_allows_listed_host_refuses_and_logs_others(
    probe: SandboxProbe, workspace: Path, web: WebServer
) -> None:
    log = workspace.parent / "proxy.jsonl"
    proxy = NetworkProxy(HostRules(allow={"localhost"}), str(workspace.parent), str(log))
    spec = build_spec(FsAccess.WORKSPACE_WRITE, str(workspace), network=NetworkAccess.PROXY)

    def curl(url: str, *extra: str) -> tuple[int | None, str, Outcome, tuple[str, ...]]:
        r = asyncio.run(
            run_attempt(
                ["curl", "-sS", "-f", *extra, url],
                cwd=str(workspace),
                spec=spec,
                probe=probe,
                proxy=proxy,
                timeout=30,
            )
        )
        return r.exit_code, r.stdout + r.stderr, r.classification.outcome, r.blocked_hosts

    code, out, outcome, _ = curl(f"http://localhost:{web.port}/")
    assert (code, out, outcome) == (0, "secret-page", Outcome.OK)
    # The same server under another name is not on the list.
    code, out, outcome, blocked = curl(f"http://127.0.0.1:{web.port}/")
    assert code == 22 and "403" in out
    assert outcome is Outcome.NETWORK_DENIED and blocked == ("127.0.0.1",)
    # HTTPS-style tunnels are decided by host too.
    code, out, outcome, blocked = curl(f"http://127.0.0.1:{web.port}/", "--proxytunnel")
    assert code != 0 and outcome is Outcome.NETWORK_DENIED
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["host"], r["allowed"], r["reason"]) for r in records] == [
        ("localhost", True, "allow-list"),
        ("127.0.0.1", False, "blocked-by-allowlist"),
        ("127.0.0.1", False, "blocked-by-allowlist"),
    ]
    assert records[2]["method"] == "CONNECT"
    assert not any(f.startswith("p-") for f in os.listdir(workspace.parent))  # sockets removed


def test_deny_list_wins_over_allow() -> None:
    rules = HostRules(allow={"*.example.com", "a.example.com"}, deny={"a.example.com"})
    assert rules.decide("b.example.com") == (True, "allow-list")
    assert rules.decide("A.Example.com") == (False, "blocked-by-denylist")
    assert rules.decide("example.org") == (False, "blocked-by-allowlist")


def test_host_unix_sockets_are_unreachable_with_the_network_off(
    probe: SandboxProbe, workspace: Path
) -> None:
    """A named Unix socket can be connected to even on a read-only mount (docker.sock, tmux):
    with the network off, socket() is refused outright; socketpair() still works."""
    path = workspace.parent / "host.sock"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    srv.listen()
    try:
        with socket.socket(socket.AF_UNIX) as c:
            c.connect(str(path))  # control: reachable from the host
        code = (
            "import socket\n"
            "a, b = socket.socketpair(); a.send(b'p'); print('pair', b.recv(1))\n"
            "try:\n"
            f"    socket.socket(socket.AF_UNIX).connect({str(path)!r}); print('REACHED')\n"
            "except OSError as e:\n"
            "    print('refused', e.errno)\n"
        )
        r = run_in(probe, workspace, ["python3", "-c", code])
        assert r.stdout == "pair b'p'\nrefused 1\n", r.stdout + r.stderr
    finally:
        srv.close()
