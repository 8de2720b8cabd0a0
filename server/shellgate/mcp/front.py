"""The fast start of `shellgate mcp`: the wire is served while the MCP SDK is still importing.

Importing the SDK costs over a second (pydantic builds the models of both protocol revisions),
longer than clients like to wait for `initialize`. So, before that import, `Front.start` claims
the wire as the SDK's `stdio_server()` does and reads it in a thread. A request the SDK has
already answered in an earlier run is answered at once from the answer cache (answers.py);
every line still goes to the SDK, in order, and the SDK's own reply to a request answered early
is compared with what was sent, then dropped (a difference is logged and the cache corrected).

The cache maps the exact opening of a conversation (every line the client sent so far, up to and
including the request, byte for byte, ids included) to the exact line the SDK answered, so no
protocol rule is re-implemented here: an early answer is the SDK's own answer to the same input.
Only the listing and handshake methods are answered early; the opening is followed only while it
holds nothing else (the first `tools/call` ends it). Any doubt about the cache means the slow
path: the SDK answers once loaded.

Stdlib only: this module is imported before anything heavy.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import threading
from typing import TYPE_CHECKING, Any

from shellgate.mcp.answers import AnswerCache, cache_key, cache_path, warn
from shellgate.mcp.malformed import error_for

if TYPE_CHECKING:
    import asyncio

# Answered from the cache while the SDK loads: their answers depend on nothing but the server's
# code and the conversation's opening. `subscriptions/listen` is answered by its acknowledgement
# (a notification naming the request), which Claude Code awaits before it lists the tools.
EARLY = frozenset({"initialize", "server/discover", "tools/list", "prompts/list", "resources/list",
                   "resources/templates/list", "subscriptions/listen"})  # fmt: skip
# Requests that leave the opening open (they change no answer above); notifications too.
NEUTRAL = EARLY | {"ping"}
_ACK = "notifications/subscriptions/acknowledged"
_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
OPENING_LIMIT = 32  # lines; real clients list their tools within a dozen


def _reply_key(line: str) -> str | None:
    """Which request a line from the server answers: "<id>" for a response, "ack:<id>" for the
    acknowledgement of a `subscriptions/listen`, None for anything else. The id as JSON keeps 1
    and "1" apart."""
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    if not isinstance(msg, dict):
        return None
    if "id" in msg and ("result" in msg or "error" in msg):
        return json.dumps(msg["id"])
    if msg.get("method") == _ACK:
        meta = (msg.get("params") or {}).get("_meta") or {}
        if isinstance(meta, dict) and _SUBSCRIPTION in meta:
            return "ack:" + json.dumps(meta[_SUBSCRIPTION])
    return None


class Wire:
    """The client's stdin and stdout, claimed as the SDK's `stdio_server()` claims them: served
    from private descriptors, while fd 0 reads /dev/null and fd 1 writes to stderr, so neither a
    child nor a stray print can touch the wire."""

    def __init__(self) -> None:
        self.read_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        self.write_fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        try:
            os.dup2(2, 1)
        except OSError:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
        self._lock = threading.Lock()

    def write(self, line: str) -> None:
        data = memoryview(line.encode("utf-8"))
        with self._lock:  # one whole line at a time: the front and the SDK both write
            while data:
                data = data[os.write(self.write_fd, data):]


class Front:
    """Reads the wire in a thread, answers early what it can, and hands every line to the SDK
    (`sdk_stdin`), whose output passes `sdk_stdout` to the wire."""

    def __init__(self, wire: Wire, cache: AnswerCache | None) -> None:
        self.wire, self.cache = wire, cache
        self._lock = threading.Lock()
        # The lines read before the SDK's loop runs; then they go straight to its queue, so a
        # line wakes the loop as directly as a read in the SDK's own worker thread would.
        self._backlog: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[str] | None = None
        self._ready = False  # the SDK reads: from then on it answers everything itself
        self._ended = False  # the client closed its end
        self._opening: Any = hashlib.sha256() if cache is not None else None
        self._count = 0
        # id key -> (opening digest, the line sent early | None when the SDK answers first)
        self._watch: dict[str, tuple[str, str | None]] = {}
        self.debug = bool(os.environ.get("SHELLGATE_MCP_DEBUG"))
        self.sdk_stdin, self.sdk_stdout = _SdkIn(self), _SdkOut(self)

    @classmethod
    def start(cls, options: dict[str, Any]) -> Front:
        cache: AnswerCache | None
        try:
            cache = AnswerCache(cache_path(), cache_key(options))
        except (OSError, ValueError) as exc:  # sources unreadable: no fast start, still right
            warn(f"no answer cache: {exc}")
            cache = None
        front = cls(Wire(), cache)
        threading.Thread(target=front._read, name="mcp-front", daemon=True).start()
        return front

    def _read(self) -> None:
        # The SDK's own reading: UTF-8 with replacement, universal newlines, so its lines and
        # ours are the same lines.
        wire = io.TextIOWrapper(os.fdopen(self.wire.read_fd, "rb", closefd=False),
                                encoding="utf-8", errors="replace")  # fmt: skip
        try:
            for line in wire:
                if (error := error_for(line)) is not None or not line.strip():
                    # Answered here, never handed on: the SDK would drop it without a word.
                    if error is not None:
                        with contextlib.suppress(OSError):  # the client left: the end follows
                            self.wire.write(error)
                    continue
                if self._opening is not None:
                    try:
                        self._consider(line)
                    except Exception as exc:  # never lose a line over the fast path
                        warn(f"fast start off: {exc!r}")
                        self._opening = None
                self._deliver(line)
        except (OSError, ValueError) as exc:
            warn(f"reading stdin: {exc}")
        finally:
            self._ended = True
            self._deliver("")  # the end of the input

    def _deliver(self, line: str) -> None:
        with self._lock:
            loop, q = self._loop, self._queue
            if loop is None or q is None:
                self._backlog.append(line)
                return
        with contextlib.suppress(RuntimeError):  # the loop has closed: the server is ending
            loop.call_soon_threadsafe(q.put_nowait, line)

    def _attach(self) -> asyncio.Queue[str]:
        """In the SDK's event loop, as it starts reading: the backlog first, then every line."""
        import asyncio  # the SDK has imported it by now

        q: asyncio.Queue[str] = asyncio.Queue()
        with self._lock:
            for line in self._backlog:
                q.put_nowait(line)
            self._backlog = []
            self._loop, self._queue, self._ready = asyncio.get_running_loop(), q, True
        return q

    def _consider(self, line: str) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        method = msg.get("method") if isinstance(msg, dict) else None
        is_request = isinstance(msg, dict) and "id" in msg
        self._count += 1
        if (not isinstance(method, str) or (is_request and method not in NEUTRAL)
                or self._count > OPENING_LIMIT):  # fmt: skip
            self._opening = None  # past the opening: nothing more is cached or answered early
            return
        data = line.encode("utf-8")
        self._opening.update(b"%d\0" % len(data) + data)
        if not is_request or method not in EARLY:
            return
        assert isinstance(msg, dict) and self.cache is not None
        digest, key = self._opening.hexdigest(), json.dumps(msg["id"])
        if method == "subscriptions/listen":
            key = "ack:" + key
        with self._lock:
            if key in self._watch:  # a reused id: leave it all to the SDK
                return
            sent = None if self._ready else self.cache.get(digest)
            if sent is not None and _reply_key(sent) != key:
                warn(f"the answer cache {self.cache.path} holds a wrong answer; not used")
                sent = None
            self._watch[key] = (digest, sent)
        if sent is not None:
            if self.debug:
                warn(f"answered {method} (id {key}) early, from the cache")
            with contextlib.suppress(OSError):  # the client left: the SDK will see the end
                self.wire.write(sent)

    def from_sdk(self, line: str) -> None:
        """The SDK's line to the wire, but for its reply to a request answered early, which is
        checked against what was sent; a reply the cache lacked is learnt."""
        # Replies the SDK writes once the client has closed its end are its shutdown's
        # ("Connection closed"): neither learnt nor held against the cache. Read before this
        # line goes out, since the client may close on reading it.
        ended = self._ended
        key = _reply_key(line) if self._watch else None  # parsed only during the opening
        listen = None
        with self._lock:
            watched = self._watch.pop(key, None) if key is not None else None
            if watched is None and key is not None and not key.startswith("ack:"):
                listen = self._watch.pop("ack:" + key, None)
        if watched is None or watched[1] is None:
            self.wire.write(line)
        if ended:
            return
        if listen is not None and listen[1] is not None:
            # A response to a `subscriptions/listen` instead of its acknowledgement: nothing to
            # cache, and the acknowledgement sent early was wrong.
            self._differed(listen[0], listen[1], line, learn=False)
        if watched is None:
            return
        assert self.cache is not None
        digest, sent = watched
        if sent is None:
            if self.cache.get(digest) != line:
                self.cache.put(digest, line)
        elif sent != line:
            self._differed(digest, sent, line, learn=True)

    def _differed(self, digest: str, sent: str, line: str, *, learn: bool) -> None:
        assert self.cache is not None
        warn(f"the answer sent early from the cache {self.cache.path} differed from the SDK's; "
              f"the cache is corrected.\n  sent: {sent.strip()[:300]}\n  "
              f"SDK:  {line.strip()[:300]}")  # fmt: skip
        self.cache.put(digest, line if learn else None)


class _SdkIn:
    """The SDK's stdin, as `stdio_server` reads it (`async for line in stdin`): every line the
    front read, in order, then the end."""

    def __init__(self, front: Front) -> None:
        self._front = front

    def __aiter__(self) -> _SdkIn:
        return self

    async def __anext__(self) -> str:
        q = self._front._queue or self._front._attach()
        line = await q.get()
        if not line:
            q.put_nowait("")  # the end stays the end
            raise StopAsyncIteration
        return line


class _SdkOut:
    """The SDK's stdout, as `stdio_server` writes it (`await write(line)`, `await flush()`):
    whole lines to the wire, but for replies to requests answered early. One worker-thread hop a
    line (a full pipe must not block the event loop); `flush` has nothing to do."""

    def __init__(self, front: Front) -> None:
        self._front = front
        self._buffer = ""

    async def write(self, text: str) -> int:
        from anyio import to_thread  # the SDK has imported it by now

        self._buffer += text
        while "\n" in self._buffer:
            line, self._buffer = self._buffer.split("\n", 1)
            await to_thread.run_sync(self._front.from_sdk, line + "\n")
        return len(text)

    async def flush(self) -> None:
        pass  # every line is written whole, unbuffered
