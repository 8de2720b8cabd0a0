"""The broker endpoint: an asyncio Unix socket server speaking newline-delimited JSON-RPC 2.0.

Security: the socket lives in the private runtime folder (0700, ours, not a symlink), is
itself 0600, and every connection's peer uid (SO_PEERCRED) must be ours: anything else is
closed unanswered. No TCP, ever. What the methods do is the caller's: `on_decide` and `on_ask`
(the language server gives its dialog); the endpoint only validates and routes.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import signal
import socket
import stat
import struct
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from shellgate.broker import discovery
from shellgate.broker.decide import decide
from shellgate.broker.protocol import (
    ASK,
    DECIDE,
    HELLO,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    PROTOCOL_VERSION,
    REVIEWED,
    AgentAnswer,
    AgentDecision,
    AgentRequest,
    ProtocolError,
    ask_timeout,
    check_version,
    decision_from_json,
    request_from_json,
    review_from_json,
)

log = logging.getLogger("shellgate.broker")

MAX_LINE = 1 << 20  # one request; a longer line closes the connection unanswered

OnDecide = Callable[[AgentRequest], Awaitable[AgentDecision]]
OnAsk = Callable[[AgentRequest, AgentDecision, float], Awaitable[AgentAnswer]]
OnReviewed = Callable[[AgentRequest, AgentDecision, dict[str, str | None]], None]


def peer_uid(sock: socket.socket) -> int:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


class Endpoint:
    def __init__(
        self,
        workspace_folders: Sequence[str],
        *,
        on_decide: OnDecide,
        on_ask: OnAsk,
        version: str,
        on_reviewed: OnReviewed | None = None,
    ) -> None:
        self.workspace_folders = tuple(workspace_folders)
        self.on_decide = on_decide
        self.on_ask = on_ask
        self.on_reviewed = on_reviewed
        self.version = version
        self.info: discovery.ServerInfo | None = None
        self.refused = 0  # connections from another uid, for tests and logs
        # Sees every message, ("in" | "out", message): schema checks in tests, debug logs.
        self.trace: Callable[[str, Any], None] | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._inode: int | None = None  # the socket this endpoint bound: the only one it removes

    async def start(self) -> discovery.ServerInfo:
        folder = discovery.ensure_runtime_dir()
        pid = os.getpid()
        path = discovery.socket_path(folder, pid)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # our own pid's leftover: nobody else can be listening on it
        self._server = await asyncio.start_unix_server(self._serve, path=path, limit=MAX_LINE)
        os.chmod(path, 0o600)  # the folder is 0700 already: no one else could race this
        st = os.lstat(path)
        self._inode = st.st_ino if stat.S_ISSOCK(st.st_mode) else None
        self.info = discovery.ServerInfo(
            pid=pid,
            workspace_folders=self.workspace_folders,
            socket=path,
            version=self.version,
            protocol=PROTOCOL_VERSION,
            path=discovery.info_path(folder, pid),
        )
        discovery.write_info(self.info)
        return self.info

    def update_folders(self, workspace_folders: Sequence[str]) -> None:
        """The editor opened or closed folders: clients find this server by the new ones."""
        self.workspace_folders = tuple(workspace_folders)
        if self.info is not None:
            self.info = self.info._replace(workspace_folders=self.workspace_folders)
            discovery.write_info(self.info)

    def close(self) -> None:
        """Stop listening and remove the discovery file and socket (safe to call twice)."""
        if self._server is not None:
            self._server.close()
            self._server = None
        if self.info is not None:
            discovery.remove_own(self.info, self._inode)
            self.info = None

    def close_on_exit(self) -> None:
        """`close` however the process ends: at exit, and on SIGTERM, SIGINT and SIGHUP, whose
        default action would kill it with the discovery file and socket left behind (a client
        would then find a server that is gone). Then the signal takes its default course, so the
        parent still sees the process killed by it. A signal the process ignores (nohup) stays
        ignored; off the main thread (an embedding host's business) only the atexit part holds."""
        atexit.register(self.close)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            if signal.getsignal(sig) is signal.SIG_IGN:
                continue
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._die, sig)

    def _die(self, sig: signal.Signals) -> None:
        self.close()
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)

    async def aclose(self) -> None:
        """`close`, and end the connections still open (their questions go unanswered)."""
        self.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        try:
            uid = peer_uid(sock)
        except OSError:
            uid = -1
        if uid != os.getuid():
            self.refused += 1
            log.warning("broker: refused a connection from uid %s", uid)
            writer.close()
            return
        lock = asyncio.Lock()
        tasks: set[asyncio.Task[None]] = set()
        me = asyncio.current_task()
        if me is not None:
            self._connections.add(me)
            me.add_done_callback(self._connections.discard)
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    log.warning("broker: a request over %d bytes: connection closed", MAX_LINE)
                    break
                if not line:
                    break
                if not line.strip():
                    continue
                task = asyncio.ensure_future(self._handle(line, writer, lock))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except (ConnectionError, OSError):
            pass
        finally:
            # The asker went away (a hook killed, its agent gone): its questions go with it.
            for task in tasks:
                task.cancel()
            writer.close()

    async def _handle(self, line: bytes, writer: asyncio.StreamWriter, lock: asyncio.Lock) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            await self._send(writer, lock, _error(None, PARSE_ERROR, "not JSON"))
            return
        if self.trace is not None:
            self.trace("in", msg)
        msg_id = msg.get("id") if isinstance(msg, dict) else None
        try:
            result = await self._dispatch(msg)
        except ProtocolError as exc:
            await self._send(writer, lock, _error(msg_id, exc.code, str(exc)))
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # one bad request must not take the endpoint down
            log.exception("broker: %s failed", msg.get("method") if isinstance(msg, dict) else "?")
            await self._send(writer, lock, _error(msg_id, INTERNAL_ERROR, str(exc)))
            return
        if msg_id is not None:
            await self._send(writer, lock, {"jsonrpc": "2.0", "id": msg_id, "result": result})

    async def _dispatch(self, msg: Any) -> Any:
        if (
            not isinstance(msg, dict)
            or msg.get("jsonrpc") != "2.0"
            or not isinstance(msg.get("method"), str)
            or not isinstance(msg.get("id"), int | str)
        ):
            raise ProtocolError("not a JSON-RPC 2.0 request", INVALID_REQUEST)
        method = msg["method"]
        params = msg.get("params")
        if not isinstance(params, dict):
            raise ProtocolError("params must be an object")
        check_version(params)
        if method == HELLO:
            assert self.info is not None
            return {**self.info.to_json(), "server": "shellgate"}
        if method == DECIDE:
            return (await self.on_decide(request_from_json(params))).to_json()
        if method == ASK:
            timeout = ask_timeout(params)
            decision = decision_from_json(params.get("decision"))  # the asker's, carried
            return (await self.on_ask(request_from_json(params), decision, timeout)).to_json()
        if method == REVIEWED:  # a record for the history: nobody is asked
            review = review_from_json(params.get("review"))
            decision = decision_from_json(params.get("decision"))
            if self.on_reviewed is not None:
                self.on_reviewed(request_from_json(params), decision, review)
            return {}
        raise ProtocolError(f"unknown method {method}", METHOD_NOT_FOUND)

    async def _send(
        self, writer: asyncio.StreamWriter, lock: asyncio.Lock, body: dict[str, Any]
    ) -> None:
        if self.trace is not None:
            self.trace("out", body)
        async with lock:
            try:
                writer.write(json.dumps(body).encode() + b"\n")
                await writer.drain()
            except (ConnectionError, OSError):
                pass


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


async def decide_in_thread(request: AgentRequest) -> AgentDecision:
    """`decide` off the event loop: loading a large rules file takes a while."""
    return await asyncio.to_thread(decide, request)
