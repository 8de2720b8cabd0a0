"""`record(entry)`: the one call every decision point makes. The entry goes to the local log
(`chain`), and, when Codex's `[otel]` exports anything, to the spool, and a detached
`shellgate log drain` is started to send it: the caller never waits on a collector, and never
imports OpenTelemetry (a process without `[otel]` pays two small file reads for the check).

Recording never changes a decision: whatever fails here is said on stderr and the caller goes on.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time

from shellgate.codexconfig import SYSTEM_FOLDER, codex_home_folder
from shellgate.record import chain
from shellgate.record.entry import Entry, clip, new_call_id
from shellgate.records import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from shellgate.codexconfig.otel import OtelConfig

_KEPT = "otel-config.json"


def record(entry: Entry | None, env: Mapping[str, str] | None = None, *,
           send: bool = True) -> None:  # fmt: skip
    """Appends `entry` to the log and hands it to the exporter when `[otel]` says so (None:
    nothing was decided). `send`: start a sender now (False: leave it for the next one)."""
    if entry is None:
        return
    env = os.environ if env is None else env
    try:
        entry = _ready(entry)
        state = chain.state_dir(env)
        digest: str | None = None
        seq = 0
        try:
            seq, digest = chain.append(entry.to_json(), state)
        except OSError as exc:
            _warn(f"the decision log could not be written ({exc})")
        config = otel_config(env, state)
        if config is None or not config.exports:
            return
        from shellgate.record import spool  # deferred: only when [otel] exports

        folder = spool.folder_of(state)
        spool.put(folder, {"entry": entry.to_json(), "hash": digest, "seq": seq})
        if send:
            kick(folder, env)
    except Exception as exc:  # a decision stands whatever its record does
        _warn(f"the decision could not be recorded ({type(exc).__name__}: {exc})")


def _ready(entry: Entry) -> Entry:
    if not entry.time:
        entry = entry._replace(time=time.time())
    if not entry.call_id:
        entry = entry._replace(call_id=new_call_id())
    command, cut = clip(entry.command)
    output, cut_out = clip(entry.output)
    arguments, cut_args = clip(entry.arguments)
    if cut or cut_out or cut_args:
        entry = entry._replace(command=command or "", output=output, arguments=arguments,
                               truncated=True)  # fmt: skip
    return entry


def otel_config(env: Mapping[str, str], state: str,
                system_dir: str | None = None) -> OtelConfig | None:  # fmt: skip
    """Codex's `[otel]` (admin's and user's config.toml), from a kept copy while the files
    are unchanged: parsing TOML would cost a hook ~10 ms, and no file that does not say `otel`
    is parsed at all. Raises OtelError for a bad one."""
    key, texts = [], []
    system = SYSTEM_FOLDER if system_dir is None else system_dir
    # the admin's tier, then the user's (codexconfig's folders: nothing else computes them)
    for path in (os.path.join(system, "config.toml"),
                 os.path.join(codex_home_folder(env), "config.toml")):
        try:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                texts.append((path, fh.read()))
            key.append([path, st.st_mtime_ns, st.st_size, st.st_ino])
        except OSError:
            key.append([path, None, None, None])
    if not any(b"otel" in raw for _, raw in texts):
        return None
    # deferred: Codex's [otel] reader, only when a config file mentions otel
    from shellgate.codexconfig.otel import OtelError, from_json, parse

    kept_path = os.path.join(state, _KEPT)
    try:
        with open(kept_path, encoding="utf-8") as fh:
            kept = json.load(fh)
        if kept.get("key") == key:
            if kept.get("error"):
                raise OtelError(kept["error"])
            return None if kept["config"] is None else from_json(kept["config"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no copy, or another shape: parse afresh
    try:
        config = parse(texts)
        error = None
    except OtelError as exc:
        config, error = None, str(exc)
    kept = {"key": key, "config": None if config is None else config.to_json(), "error": error}
    try:
        os.makedirs(state, mode=0o700, exist_ok=True)
        tmp = f"{kept_path}.{os.getpid()}"
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as fh:
            json.dump(kept, fh)
        os.replace(tmp, kept_path)
    except OSError:
        pass  # parsed again next time
    if error is not None:
        raise OtelError(error)
    return config


def kick(folder: str, env: Mapping[str, str]) -> bool:
    """Starts a detached sender unless one runs, one was started a moment ago, or the collector
    failed a moment ago; the caller does not wait for it. True when one was started."""
    from shellgate.record import spool  # deferred: only when [otel] exports

    if spool.backing_off(folder) or spool.draining(folder) or not spool.claim_start(folder):
        return False
    for pid in list(_started):  # a long-lived caller (MCP server, agent) reaps its senders
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                _started.remove(pid)
        except ChildProcessError:
            _started.remove(pid)
    # -P: not the cwd's `shellgate/` (an agent's workspace) on the path; bundled libraries
    # (PYTHONPATH, as the VS Code extension starts the hook) are kept.
    argv = [sys.executable, "-P", "-m", "shellgate", "log", "drain", "--quiet", "--linger", "2"]
    threads = sys.modules.get("threading")
    if threads is None or threads.active_count() == 1:
        _started.append(_fork_exec(argv, env))
    else:  # fork in a threaded process (the language server, MCP) is unsafe: spawn
        _started.append(_spawn(argv, env))
    return True


def _fork_exec(argv: list[str], env: Mapping[str, str]) -> int:
    """A hook (one thread): fork, and the child execs the sender. Not posix_spawn: its vfork
    suspends the caller until the child has exec'd, which on a loaded machine is a wait in the
    run queue (10-40 ms measured here); a fork returns at once (~1 ms)."""
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: nothing of the agent's (the hook's pipes see EOF when the hook exits)
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1 << 16)
        os.execve(sys.executable, argv, dict(env))
    finally:
        os._exit(127)


def _spawn(argv: list[str], env: Mapping[str, str]) -> int:
    null = os.open(os.devnull, os.O_RDWR)
    try:
        actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)]
        actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited() if fd != null]
        return os.posix_spawn(sys.executable, argv, dict(env), setsid=True,
                              file_actions=actions)  # fmt: skip
    finally:
        os.close(null)


_started: list[int] = []


def _inherited() -> list[int]:
    """This process's descriptors above 2 that a child would inherit."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return []
    out = []
    for fd in fds:
        try:
            if fd > 2 and os.get_inheritable(fd):
                out.append(fd)
        except OSError:
            pass  # the listing's own descriptor, closed by now
    return out


def _warn(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(f"shellgate: {text}", file=sys.stderr)
