"""The allow-list HTTP/HTTPS proxy outside the sandbox (spec/sandbox.md §6.4, srt's design).

The sandbox has an empty network namespace. A bridge inside it (socat) listens on
127.0.0.1:3128 and forwards to a Unix socket of this proxy, one socket per attempt so every
decision is attributed to the right command. Deny list first, then the allow list, then: blocked
with `403` + `X-Proxy-Error: blocked-by-allowlist` and a logged event; the orchestrator asks the
user after the command ends and retries (Codex's deferred approval).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import ipaddress
import json
import os
import secrets
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import asdict, dataclass, field

BRIDGE_PORT = 3128
_MAX_HEAD = 64 * 1024


@dataclass(frozen=True)
class NetworkEvent:
    tag: str
    host: str
    port: int
    method: str
    allowed: bool
    reason: str  # "allow-list", "blocked-by-allowlist", "blocked-by-denylist", ...
    time: float


@dataclass
class HostRules:
    """Host patterns (exact, case-insensitive, `*.example.com` for subdomains)."""

    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)

    @staticmethod
    def _match(host: str, patterns: Iterable[str]) -> bool:
        h = host.lower().rstrip(".")
        return any(
            h == p.lower() or (p.startswith("*.") and fnmatch.fnmatch(h, p.lower()))
            for p in patterns
        )

    def decide(self, host: str) -> tuple[bool, str]:
        if self._match(host, self.deny):
            return False, "blocked-by-denylist"
        if self._match(host, self.allow):
            return True, "allow-list"
        return False, "blocked-by-allowlist"


def _is_local(addr: str) -> bool:
    try:
        ip = ipaddress.ip_address(addr.split("%", 1)[0])
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_unspecified


def _is_literal_or_localhost(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def proxy_env() -> dict[str, str]:
    """Codex's list of proxy variables, pointed at the in-sandbox bridge."""
    url = f"http://127.0.0.1:{BRIDGE_PORT}"
    env = {"NO_PROXY": "", "no_proxy": ""}
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "PIP_PROXY",
        "YARN_HTTP_PROXY",
        "YARN_HTTPS_PROXY",
        "NPM_CONFIG_PROXY",
        "NPM_CONFIG_HTTPS_PROXY",
    ):
        env[name] = url
        env[name.lower()] = url
    return env


def bridge_command(socket_path: str, command: list[str]) -> list[str]:
    """sh: start socat, wait until it listens (so the command never races it), exec the command.

    The wait reads /proc/net/tcp with shell builtins only: no fork per poll.
    """
    port = f":{BRIDGE_PORT:04X} "
    script = (
        f"socat TCP-LISTEN:{BRIDGE_PORT},bind=127.0.0.1,fork,reuseaddr"
        ' "UNIX-CONNECT:$1" 2>/dev/null &\n'
        "i=0\n"
        "while [ $i -lt 20000 ]; do\n"
        "  while IFS= read -r l; do\n"
        f'    case $l in *"{port}"*) break 2;; esac\n'
        "  done < /proc/net/tcp\n"
        "  i=$((i+1))\n"
        "done\n"
        'shift; exec "$@"'
    )
    return ["/bin/sh", "-c", script, "shellgate-bridge", socket_path, *command]


class NetworkProxy:
    """One proxy, any number of per-attempt Unix listeners; events are kept and may be logged."""

    def __init__(self, rules: HostRules, socket_dir: str, log_path: str | None = None) -> None:
        self.rules = rules
        self.socket_dir = socket_dir
        self.log_path = log_path
        self.events: list[NetworkEvent] = []
        self._once: dict[str, frozenset[str]] = {}

    def events_for(self, tag: str) -> list[NetworkEvent]:
        return [e for e in self.events if e.tag == tag]

    @contextlib.asynccontextmanager
    async def listener(self, once: Iterable[str] = ()) -> AsyncIterator[tuple[str, str]]:
        """Yield (tag, socket path) for one attempt; `once`: hosts allowed for it alone."""
        tag = secrets.token_hex(6)
        self._once[tag] = frozenset(h.lower() for h in once)
        path = os.path.join(self.socket_dir, f"p-{tag}.sock")
        server = await asyncio.start_unix_server(lambda r, w: self._serve(tag, r, w), path=path)
        os.chmod(path, 0o666)  # the sandbox's user is mapped, but keep it reachable either way
        try:
            yield tag, path
        finally:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            self._once.pop(tag, None)

    def _record(self, event: NetworkEvent) -> None:
        self.events.append(event)
        if self.log_path:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(asdict(event)) + "\n")

    async def _serve(
        self, tag: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        try:
            await self._handle(tag, head, reader, writer)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _handle(
        self, tag: str, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return await _reply(writer, 400, "bad-request")
        method, target, version = parts
        if method == "CONNECT":
            host, port = _split_host_port(target, 443)
            path_line = None
        else:
            if not target.startswith("http://"):
                return await _reply(writer, 400, "bad-request")
            rest = target[len("http://") :]
            authority, _, path = rest.partition("/")
            host, port = _split_host_port(authority, 80)
            path_line = f"{method} /{path} {version}"
        allowed, reason = self.rules.decide(host)
        if not allowed and reason == "blocked-by-allowlist" and host.lower() in self._once.get(
                tag, ()):  # fmt: skip
            allowed, reason = True, "approved-once"
        upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        if allowed:
            try:
                upstream = await asyncio.wait_for(asyncio.open_connection(host, port), 10)
                peer = upstream[1].get_extra_info("peername")
                # DNS rebinding: a name allowed by pattern must not lead to a local address
                # unless the user allowed that literal address or localhost itself.
                if peer and _is_local(peer[0]) and not _is_literal_or_localhost(host):
                    upstream[1].close()
                    upstream, allowed, reason = None, False, "blocked-local-address"
            except (OSError, TimeoutError):
                self._record(
                    NetworkEvent(tag, host, port, method, True, "upstream-unreachable", time.time())
                )
                return await _reply(writer, 502, "upstream-unreachable")
        self._record(NetworkEvent(tag, host, port, method, allowed, reason, time.time()))
        if upstream is None:
            return await _reply(writer, 403, reason)
        up_r, up_w = upstream
        if path_line is None:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            headers = [
                h for h in lines[1:] if h and not h.lower().startswith(("proxy-", "connection:"))
            ]
            up_w.write(
                ("\r\n".join([path_line, *headers, "Connection: close"]) + "\r\n\r\n").encode(
                    "latin-1"
                )
            )
            await up_w.drain()
        await asyncio.gather(_pipe(reader, up_w), _pipe(up_r, writer))


def _split_host_port(authority: str, default: int) -> tuple[str, int]:
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else default
    host, sep, port = authority.rpartition(":")
    if sep and port.isdigit():
        return host, int(port)
    return authority, default


async def _reply(writer: asyncio.StreamWriter, status: int, error: str) -> None:
    text = {403: "Forbidden", 400: "Bad Request", 502: "Bad Gateway"}[status]
    body = f"Connection blocked by network allowlist ({error})\n".encode() if status == 403 else b""
    writer.write(
        f"HTTP/1.1 {status} {text}\r\nX-Proxy-Error: {error}\r\nContent-Length: {len(body)}\r\n"
        f"Connection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while chunk := await src.read(65536):
            dst.write(chunk)
            await dst.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            if dst.can_write_eof():
                dst.write_eof()
