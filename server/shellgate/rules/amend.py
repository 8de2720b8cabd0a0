"""Amendments: append one rule line to a rules file, exactly as Codex 0.169.0 writes it.

Codex's `blocking_append_allow_prefix_rule` / `blocking_append_network_rule` (execpolicy
`amend.rs`): create the parent folder (one level), open create+append, take an exclusive
advisory lock (`flock`, the lock Rust's `File::lock` takes, so ShellGate and Codex exclude each
other), skip a line already present, add a missing final newline, append the line.

ShellGate adds two guarantees: the bytes go out in one `os.write` on an `O_APPEND` descriptor
(and are cut back off if that write fails), so no reader or crash ever sees half a line; and
the file is fsynced before the lock is released.

A SIGKILL can still cut one `write` short on a page boundary (the kernel stops between pages
for a fatal signal). So the length before the write is kept in a journal beside the file
(`.<name>.append`, not a `.rules` file: Codex never loads it) until the write is on disk; the
next append, under the lock, cuts off an unfinished tail the journal names.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from shellgate.rules.errors import RulesError

# What Codex 0.169.0's `network_rule` accepts (spec A.6): writing anything else would make
# the whole file fail to load, so it is refused before touching the disk.
_NETWORK_PROTOCOLS = frozenset(
    {"http", "https", "https_connect", "http-connect", "socks5_tcp", "socks5_udp"}
)
_NETWORK_DECISIONS = frozenset({"allow", "prompt", "forbidden", "deny"})


class AmendError(RulesError):
    """An amendment that could not be written. A RulesError (code `amend-failed`, no
    position) so callers catch one family; `str()` is the message, which names the file."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message, path="" if path is None else str(path), code="amend-failed")

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[object, ...]:
        return (AmendError, (self.message, Path(self.path) if self.path else None))


def json_string(text: str) -> str:
    """`serde_json::to_string` of a string: `"`, `\\`, `\\b\\f\\n\\r\\t`, other C0 as
    `\\u00xx`, everything else raw. Python's encoder escapes exactly that set."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates: serde_json strings cannot hold them
        raise AmendError(f"token is not valid Unicode: {text!r}") from exc
    return json.dumps(text, ensure_ascii=False)


def prefix_rule_line(tokens: Sequence[str]) -> str:
    """The line (without its newline) Codex writes to allow the command prefix `tokens`."""
    if isinstance(tokens, str):  # a str is a Sequence[str]; "git" must not become g, i, t
        raise TypeError("tokens must be a sequence of strings, not a string")
    if not tokens:
        raise AmendError("prefix rule requires at least one token")
    pattern = ", ".join(json_string(t) for t in tokens)
    return f'prefix_rule(pattern=[{pattern}], decision="allow")'


def network_rule_line(
    host: str, protocol: str, decision: str, justification: str | None = None
) -> str:
    """The line (without its newline) Codex writes for a network rule."""
    host = host.strip()
    if protocol not in _NETWORK_PROTOCOLS:
        raise AmendError(
            "network_rule protocol must be one of http, https, socks5_tcp, socks5_udp "
            f"(got {protocol})"
        )
    if decision not in _NETWORK_DECISIONS:
        raise AmendError(f"invalid decision: {decision}")
    if justification is not None and not justification.strip():
        raise AmendError("invalid rule: justification cannot be empty")
    _check_host(host)
    line = (
        f"network_rule(host={json_string(host)}, protocol={json_string(protocol)}, "
        f"decision={json_string(decision)}"
    )
    if justification is not None:
        line += f", justification={json_string(justification)}"
    return line + ")"


def _check_host(host: str) -> None:
    # The checks of Codex's host normalisation that would make the written file unloadable.
    problem = None
    if not host:
        problem = "cannot be empty"
    elif "://" in host or any(c in host for c in "/?#"):
        problem = "must be a hostname or IP literal (without scheme or path)"
    elif "*" in host:
        problem = "must be a specific host; wildcards are not allowed"
    elif any(c.isspace() for c in host):
        problem = "cannot contain whitespace"
    if problem is not None:
        raise AmendError(f"invalid rule: network_rule host {problem}")


def append_allow_prefix_rule(path: str | os.PathLike[str], tokens: Sequence[str]) -> bool:
    """Append `prefix_rule(pattern=[...], decision="allow")` for `tokens` to `path`.

    Returns False when the identical line was already there (nothing written), else True.
    Raises AmendError (empty prefix, unwritable file, ...).
    """
    return _append_line(Path(path), prefix_rule_line(tokens))


def append_network_rule(
    path: str | os.PathLike[str],
    host: str,
    protocol: str,
    decision: str,
    justification: str | None = None,
) -> bool:
    """Append `network_rule(host=..., protocol=..., decision=...[, justification=...])`."""
    return _append_line(Path(path), network_rule_line(host, protocol, decision, justification))


def append_rule_lines(
    path: str | os.PathLike[str],
    lines: Sequence[str],
    *,
    check: Callable[[str, Sequence[str]], None] | None = None,
) -> tuple[str, ...]:
    """Append every line of `lines` not already in `path`, in one write under the lock.

    `check(existing_text, new_lines)` runs under the lock before anything is written; it may
    raise to write nothing (e.g. when the file would no longer load). Returns the lines
    written, in order (none when all were there).
    """
    return _append_lines(Path(path), lines, check)


def _append_line(path: Path, line: str) -> bool:
    return bool(_append_lines(path, [line], None))


def _append_lines(
    path: Path, lines: Sequence[str], check: Callable[[str, Sequence[str]], None] | None
) -> tuple[str, ...]:
    try:
        path.parent.mkdir()  # one level, as Codex's `create_dir`
    except FileExistsError:
        pass
    except OSError as exc:
        raise AmendError(
            f"failed to create policy directory {path.parent}: {exc.strerror}", path
        ) from exc
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise AmendError(f"failed to open policy file {path}: {exc.strerror}", path) from exc
    try:
        return _append_locked(fd, path, lines, check)
    finally:
        os.close(fd)  # also releases the lock


def _append_locked(
    fd: int,
    path: Path,
    lines: Sequence[str],
    check: Callable[[str, Sequence[str]], None] | None,
) -> tuple[str, ...]:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError as exc:
        raise AmendError(f"failed to lock policy file {path}: {exc.strerror}", path) from exc
    journal = path.with_name(f".{path.name}.append")
    try:
        _recover(fd, journal)
        contents = _read_all(fd)
        text = contents.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "stream did not contain valid UTF-8"
        raise AmendError(f"failed to read policy file {path}: {reason}", path) from exc
    # Rust's `str::lines`: split on "\n", drop one trailing "\r".
    present = {existing.removesuffix("\r") for existing in text.split("\n")}
    new = tuple(dict.fromkeys(line for line in lines if line not in present))
    if not new:
        return ()
    if check is not None:
        check(text, new)
    data = "".join(line + "\n" for line in new).encode("utf-8")
    if contents and not contents.endswith(b"\n"):
        data = b"\n" + data
    try:
        _write_journal(journal, len(contents))
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(0, f"short write ({written} of {len(data)} bytes)")
        os.fsync(fd)
    except OSError as exc:
        # Never leave a partial line behind: cut the file back to what it was.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, len(contents))
        raise AmendError(f"failed to write to policy file {path}: {exc.strerror}", path) from exc
    with contextlib.suppress(OSError):
        os.unlink(journal)
    return new


def _write_journal(journal: Path, length: int) -> None:
    fd = os.open(journal, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, str(length).encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def _recover(fd: int, journal: Path) -> None:
    """An append killed mid-write left `journal`: cut its unfinished tail (one that does not end
    a line) back to the length the journal kept. Called under the lock."""
    try:
        length = int(journal.read_text(encoding="ascii"))
    except (OSError, ValueError):
        return
    size = os.fstat(fd).st_size
    if 0 <= length < size and os.pread(fd, 1, size - 1) != b"\n":
        os.ftruncate(fd, length)
        os.fsync(fd)
    with contextlib.suppress(OSError):
        os.unlink(journal)


def _read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
