"""A seccomp BPF program for bubblewrap's ``--seccomp FD``, written by hand (no dependency).

Codex denies io_uring in every mode (it can create sockets without ``socket()``) and, with the
network cut, every socket family but AF_UNIX. We go further with the network cut: no
``socket()`` at all, only ``socketpair(AF_UNIX)`` (pipes between a command's own processes).
A named Unix socket is reachable even on a read-only mount, so AF_UNIX ``socket()`` would let a
command talk to the host's docker, tmux or ssh-agent sockets. With the proxy, the in-sandbox
bridge needs AF_UNIX (to reach the proxy) and AF_INET/AF_INET6 on the sandbox's own loopback;
the network namespace still has no route out.
"""

from __future__ import annotations

import enum
import platform
import struct
from dataclasses import dataclass


class SocketFilter(enum.Enum):
    UNIX_ONLY = "unix-only"  # network cut: socketpair(AF_UNIX) only, no socket() at all
    PROXY_ROUTED = "proxy-routed"  # network through the in-sandbox bridge only
    NONE = "none"  # full network: only io_uring is denied


@dataclass(frozen=True)
class _Arch:
    audit_arch: int
    socket: int
    socketpair: int
    io_uring: tuple[int, int, int]
    x32_bit: bool  # x86_64 must refuse the x32 ABI, which has other numbers


_ARCHES = {
    "x86_64": _Arch(0xC000003E, 41, 53, (425, 426, 427), True),
    "aarch64": _Arch(0xC00000B7, 198, 199, (425, 426, 427), False),
}

AF_UNIX, AF_INET, AF_INET6 = 1, 2, 10

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO_EPERM = 0x00050000 | 1
_RET_ALLOW = 0x7FFF0000
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16


class SeccompUnsupported(RuntimeError):
    pass


def supported() -> bool:
    return platform.machine() in _ARCHES


def program(mode: SocketFilter, machine: str | None = None) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions; jumps are relative, as BPF wants."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        raise SeccompUnsupported(
            f"no seccomp filter for architecture {machine or platform.machine()}"
        )
    # Families allowed for socket() and for socketpair().
    families: dict[SocketFilter, tuple[tuple[int, ...], tuple[int, ...]]] = {
        SocketFilter.UNIX_ONLY: ((), (AF_UNIX,)),
        SocketFilter.PROXY_ROUTED: ((AF_UNIX, AF_INET, AF_INET6), (AF_UNIX,)),
    }
    # Build with symbolic labels, then resolve: easier to read than hand-counted offsets.
    ins: list[tuple[int, str | int, str | int, int] | str] = [
        (_LD_W_ABS, 0, 0, _OFF_ARCH),
        (_JEQ_K, 0, "kill", arch.audit_arch),
        (_LD_W_ABS, 0, 0, _OFF_NR),
    ]
    if arch.x32_bit:
        ins.append((_JGE_K, "eperm", 0, 0x40000000))
    for nr in arch.io_uring:
        ins.append((_JEQ_K, "eperm", 0, nr))
    if mode is not SocketFilter.NONE:
        ins += [(_JEQ_K, "socket", 0, arch.socket), (_JEQ_K, "pair", 0, arch.socketpair)]
    ins += [(_RET_K, 0, 0, _RET_ALLOW)]
    if mode is not SocketFilter.NONE:
        for label, allowed in zip(("socket", "pair"), families[mode], strict=True):
            ins += [label, (_LD_W_ABS, 0, 0, _OFF_ARG0)]
            if not allowed:
                ins.append((_JEQ_K, "eperm", "eperm", 0))  # whatever the family
            for i, fam in enumerate(allowed):
                last = i == len(allowed) - 1
                ins.append((_JEQ_K, "family_ok", "eperm" if last else 0, fam))
    ins += ["eperm", (_RET_K, 0, 0, _RET_ERRNO_EPERM), "kill", (_RET_K, 0, 0, _RET_KILL_PROCESS)]
    ins += ["family_ok", (_RET_K, 0, 0, _RET_ALLOW)]  # BPF jumps only forward

    labels: dict[str, int] = {}
    pc = 0
    for item in ins:
        if isinstance(item, str):
            labels[item] = pc
        else:
            pc += 1
    out: list[tuple[int, int, int, int]] = []
    for item in ins:
        if isinstance(item, str):
            continue
        code, jt, jf, k = item
        here = len(out)
        out.append((code, _rel(jt, labels, here), _rel(jf, labels, here), k))
    return out


def _rel(target: str | int, labels: dict[str, int], here: int) -> int:
    if isinstance(target, int):
        return target
    offset = labels[target] - here - 1
    if not 0 <= offset <= 255:
        raise AssertionError("BPF jump out of range")
    return offset


def bpf_bytes(mode: SocketFilter, machine: str | None = None) -> bytes:
    """The program as ``struct sock_filter[]``, what ``bwrap --seccomp FD`` reads to EOF."""
    return b"".join(struct.pack("=HBBI", *i) for i in program(mode, machine))
