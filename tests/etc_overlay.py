"""Run a command with scratch folders standing in for /etc/codex, /etc/claude-code, ...,
never writing the machine's real /etc: in a private user + mount namespace (`unshare -rm`, plus
`-n` for the agent CLIs: loopback only), /etc gets an overlay whose upper layer is scratch, and
each given folder is bound over /etc/NAME. Codex has no variable that moves its system folder,
and Claude Code's managed settings and Gemini's system settings live there too.

    etc_overlay_argv(scratch, {"codex": dir}, [cmd, ...]) -> argv to run
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def etc_overlay_argv(
    scratch: Path, etc: Mapping[str, Path], command: Sequence[str], *, net: bool = False
) -> list[str]:
    scratch.mkdir(parents=True, exist_ok=True)
    binds = [f"{name}={Path(d).absolute()}" for name, d in etc.items()]
    return [
        "unshare", "-rmn" if net else "-rm", sys.executable, "-I", os.path.abspath(__file__),
        str(scratch.absolute()), *binds, "--", *command,
    ]  # fmt: skip


def main(argv: list[str]) -> int:
    cut = argv.index("--")
    scratch, binds, command = Path(argv[0]), argv[1:cut], argv[cut + 1 :]
    upper, work = scratch / "etc-upper", scratch / "etc-work"
    upper.mkdir(exist_ok=True)
    work.mkdir(exist_ok=True)
    opts = f"lowerdir=/etc,upperdir={upper},workdir={work}"
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o", opts, "/etc"], check=True)
    for bind in binds:
        name, _, source = bind.partition("=")
        target = Path("/etc") / name
        target.mkdir(exist_ok=True)  # in the overlay's scratch upper layer
        subprocess.run(["mount", "--bind", source, str(target)], check=True)
    if "/" in command[0] or not command[0]:
        os.execv(command[0], command)
    os.execvp(command[0], command)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
