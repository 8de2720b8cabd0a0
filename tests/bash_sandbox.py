"""Real bash inside bubblewrap, recording what it runs: what the differential test's oracle
(tests/shell/bash_oracle.py) and the evasion corpus's ground truth (tests/evasion/bash_truth.py)
share. Each brings its own stubs, mounts and driver; this module has which bwrap, the sandbox
around the driver (scripts in at /in/scripts, NUL-separated; records out under /out), the
records' format (argc, then the argv, NUL-separated) and the skip-or-fail when it cannot run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from shellgate.exec.sandbox import find_bwrap


def bwrap() -> str | None:
    """ShellGate's own choice of bubblewrap, else the one Codex ships (under $SHELLGATE_TOOLS)."""
    found = find_bwrap()
    if found:
        return found
    tools = Path(os.environ.get("SHELLGATE_TOOLS", "/work/tools"))
    for bundled in sorted(tools.glob("codex-*/node_modules/@openai/codex-linux-x64/vendor/*/"
                                     "codex-resources/bwrap")):  # fmt: skip
        if os.access(bundled, os.X_OK):
            return str(bundled)
    return shutil.which("bwrap")


def run_driver(
    d: Path, scripts: Sequence[str], driver: str, mounts: Sequence[str], bash: str, timeout: float
) -> Path:
    """Run `driver` with `bash` over `scripts` in a sandbox with no network and a tmpfs root
    holding `mounts` (bwrap arguments); `d` is the caller's scratch folder. Returns the folder
    the sandbox saw as /out."""
    bw = bwrap()
    if bw is None:
        raise RuntimeError("bubblewrap (bwrap) is not installed")
    for sub in ("in", "out"):
        (d / sub).mkdir()
    (d / "in" / "scripts").write_bytes(
        b"".join(s.encode("utf-8", "surrogateescape") + b"\0" for s in scripts)
    )
    (d / "driver.sh").write_text(driver)
    argv = [bw, "--unshare-all", "--die-with-parent", "--new-session", "--tmpfs", "/",
            "--dev", "/dev", "--proc", "/proc", *mounts,
            "--ro-bind", str(d / "in"), "/in", "--bind", str(d / "out"), "/out",
            "--ro-bind", str(d / "driver.sh"), "/driver.sh", bash, "/driver.sh"]  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, timeout=timeout, check=True)
    return d / "out"


def records(raw: bytes) -> list[tuple[str, ...]]:
    fields = raw.split(b"\0")
    out: list[tuple[str, ...]] = []
    i = 0
    while i < len(fields) - 1:
        n = int(fields[i])
        out.append(tuple(f.decode("utf-8", "surrogateescape") for f in fields[i + 1 : i + 1 + n]))
        i += 1 + n
    return out


def require_sandbox(bash_runs: Callable[..., object]) -> None:
    """Skip locally, fail in CI, when bubblewrap is missing or cannot make its sandbox here."""
    strict = os.environ.get("CI") or os.environ.get("SHELLGATE_E2E")
    why = None
    if bwrap() is None:
        why = "bubblewrap (bwrap) is not installed (.ci/run installs it)"
    else:
        try:
            bash_runs(["true"], timeout=60)
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            why = f"bubblewrap cannot run bash here: {exc}"
    if why is not None:
        (pytest.fail if strict else pytest.skip)(why)
