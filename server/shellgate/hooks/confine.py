"""Can ShellGate's sandbox run here? A hook lets a command no rule allows run unasked only when
the sandbox confines it, so it must know; exec.probe's answer (bubblewrap found, user
namespaces and seccomp working) costs a bwrap start, so it is kept on disk for a few minutes,
keyed by what decides it (which bwrap, the user-namespace switches, the uid).

A stale "yes" lets nothing out: `shellgate sandbox` probes again and refuses to run the command
(exit 125). A stale "no" only asks. SHELLGATE_NO_CACHE=1 probes every time.
"""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Mapping

from shellgate.hooks.memo import cache_dir

KEEP_SECONDS = 600
_SWITCHES = (  # what turns unprivileged user namespaces off, on the kernels that have them
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


def _key(env: Mapping[str, str]) -> bytes:
    parts = [
        b"shellgate-probe-1",
        os.fsencode(env.get("SHELLGATE_BWRAP", "\0unset")),
        os.fsencode(env.get("PATH", "")),
        os.fsencode(os.getcwd()),  # find_bwrap skips a bwrap under the working directory
        b"%d" % os.getuid(),
    ]
    for switch in _SWITCHES:
        try:
            with open(switch, "rb") as fh:
                parts.append(fh.read())
        except OSError:
            parts.append(b"-")
    return b"\0".join(parts)


def sandbox_runs(env: Mapping[str, str] = os.environ) -> tuple[bool, str]:
    """(True, "") when the sandbox works here, else (False, why not)."""
    try:  # as hooks.memo: hashlib would load OpenSSL first
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import blake2b

    path = None
    if not env.get("SHELLGATE_NO_CACHE"):
        path = os.path.join(cache_dir(env), "probe-" + blake2b(_key(env)).hexdigest()[:32])
        try:
            if time.time() - os.stat(path).st_mtime < KEEP_SECONDS:
                with open(path, "rb") as fh:
                    ok, reason = marshal.loads(fh.read())
                if isinstance(ok, bool) and isinstance(reason, str):
                    return ok, reason
        except (OSError, EOFError, ValueError, TypeError):
            pass
    # deferred: exec.probe (~20 ms) only when no probe result is kept
    from shellgate.exec.probe import probe_sandbox

    probe = probe_sandbox()
    if path is not None:
        try:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                marshal.dump((probe.ok, probe.reason), fh)
            os.replace(tmp, path)
        except OSError:
            pass
    return probe.ok, probe.reason
