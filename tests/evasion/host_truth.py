"""What real bash and the real host programs run for a script (issue 24): the ground truth of
the host-program corpus, a sibling of bash_truth.

bash_truth stubs the programs it studies; here the programs that run commands for bash are the
real ones (git, tar, zip, ssh, awk, sed, vim, less, make, gdb, sqlite3, socat, perl, python3,
node, ruby, busybox, ...: the Debian packages .ci/run installs), offline, and only the
forbidden programs (`rm`, `curl`, `dd`) are recording stubs, in PATH and bound over
/usr/bin/NAME so that `/bin/rm` and a program's own PATH find them too. A spelling counts only
when a stub recorded the forbidden argv.

Each script gets a fresh folder `/w/<i>` (also its HOME) holding `x` and `y`, and first its
scaffolding (a git repository, a tar file, a file to read...), run by bash with the stubs not
recording (their record folder does not exist yet); then the script itself, under `timeout`.
The sandbox is bash_truth's: no network, a tmpfs root, the system read-only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bash_truth import REC, system_mounts, write_stubs

from bash_sandbox import records, run_driver

FORBIDDEN = ("rm", "curl", "dd")
TIMEOUT = 8  # seconds a script may take: an editor or a REPL reading /dev/null ends sooner

DRIVER = r"""
base=(/proc/[0-9]*); base=${#base[@]}
i=0
while IFS= read -r -d '' setup && IFS= read -r -d '' s; do
  d=/w/$i
  /usr/bin/mkdir -p "$d"; echo keep > "$d/x"; echo keep > "$d/y"
  printf '[user]\n\tname = A U Thor\n\temail = author@example.com\n' > "$d/.gitconfig"
  (cd "$d" && HOME=$d PATH=/usr/bin:/usr/sbin /usr/bin/timeout -k 1 20 /bin/bash -c "$setup" \
     </dev/null >/dev/null 2>&1)
  /usr/bin/mkdir -p /out/cur
  (cd "$d" && HOME=$d PATH=/stubs:/usr/bin:/usr/sbin /usr/bin/timeout -k 1 @TIMEOUT@ \
     /bin/bash -c "$s" </dev/null >/dev/null 2>&1)
  for _ in $(/usr/bin/seq 200); do  # whatever went to the background ends too
    p=(/proc/[0-9]*); [ ${#p[@]} -le $base ] && break
    /usr/bin/sleep 0.01
  done
  /usr/bin/mv /out/cur /out/$i
  i=$((i + 1))
done < /in/scripts
""".replace("@TIMEOUT@", str(TIMEOUT))


def host_runs(
    scripts: Sequence[tuple[str, str]], *, timeout: float = 900, batches: int = 4
) -> list[list[tuple[str, ...]]]:
    """For each (scaffolding, script): the argvs the stubs recorded while the script ran.
    The scripts go in `batches` sandboxes side by side: many of them wait (vim pauses two
    seconds when its output is no terminal, ssh-agent polls), few of them compute."""
    size = max(1, -(-len(scripts) // batches))
    chunks = [scripts[i : i + size] for i in range(0, len(scripts), size)]
    with ThreadPoolExecutor(max_workers=len(chunks) or 1) as pool:
        done = list(pool.map(lambda chunk: _batch(chunk, timeout), chunks))
    return [ran for part in done for ran in part]


def _batch(scripts: Sequence[tuple[str, str]], timeout: float) -> list[list[tuple[str, ...]]]:
    with tempfile.TemporaryDirectory(prefix="shellgate-host-truth-") as tmp:
        d = Path(tmp)
        write_stubs(d / "stubs", REC, FORBIDDEN)
        mounts = system_mounts(d / "stubs", FORBIDDEN)
        flat = [part for pair in scripts for part in pair]
        out_dir = run_driver(d, flat, DRIVER, mounts, "/usr/bin/bash", timeout)
        out: list[list[tuple[str, ...]]] = []
        for i, (_, script) in enumerate(scripts):
            folder = out_dir / str(i)
            if not folder.is_dir():
                raise RuntimeError(f"bash left no record folder for script {i} ({script!r})")
            ran: list[tuple[str, ...]] = []
            for part in sorted(folder.iterdir()):
                ran.extend(records(part.read_bytes()))
            out.append(ran)
        return out


def ran_target(ran: Sequence[tuple[str, ...]], target: Sequence[str]) -> bool:
    """Whether a stub recorded `target` (its program, then its arguments; a program that
    appends words of its own, such as a file name, still counts)."""
    return any(tuple(argv[: len(target)]) == tuple(target) for argv in ran)
