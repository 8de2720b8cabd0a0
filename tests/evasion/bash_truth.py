"""What real bash runs for a script, recorded by stub programs: the ground truth of the corpus.

Each script runs in `bash -c` inside bubblewrap (no network, a tmpfs root, the system read-only,
a scratch working folder `/w` holding `x` and `y`), with a PATH of stub programs in front
(`/stubs:/usr/bin`). Unlike tests/shell/bash_oracle.py, builtins stay real (`command`,
`builtin`, `exec`, `eval`, `source` must do what they do) and programs that run their
arguments do run them:

- the forbidden programs (`rm`, `curl`, `git`, `dd`, `chmod`) only record their argv; their
  stubs are also bound over /usr/bin/NAME, so `env -i rm` or a shell's default PATH finds them;
- `env`, `nice`, `nohup`, `timeout`, `setsid`, `stdbuf`, `xargs`, `find`, `flock` record, then
  exec the real program (its own option parsing decides what runs);
- `sh`/`dash` exec the real dash, `bash` the real bash (the stubs stay in PATH);
- programs not installed here, or that need a terminal, are emulated after recording: `sudo`
  and `doas` skip their options and exec the rest, `busybox`/`toybox APPLET` exec the applet,
  `watch` runs `sh -c "$*"` once (`-x`: exec), `script -c CMD` and `su -c CMD` run `sh -c CMD`.

Every process appends its records to its own file (one per pid) in a folder the stubs know by
a fixed path, so even `env -i` cannot hide a record; after each script the driver waits for
every process of the sandbox's pid namespace to end, then moves the folder away.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bash_sandbox import records, run_driver

FORBIDDEN_PROGRAMS = ("rm", "curl", "git", "dd", "chmod")
EXEC_RUNNERS = ("env", "nice", "nohup", "timeout", "setsid", "stdbuf", "xargs", "find", "flock")
REC = "/out/cur"

_HEAD = """#!/bin/bash -p
builtin printf '%s\\0' "$(($# + 1))" "${__NAME}" "$@" >> ${__REC}/$$
"""
_EMULATED = {
    "sudo": r"""
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    -u|-g|-C|-D|-h|-p|-r|-t|-U|-T) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] && exec "$@"
""",
    "busybox": 'exec "$@"\n',
    "watch": r"""
x=
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    -x|--exec) x=1; shift ;;
    -n|-d|-q|--interval) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ -n "$x" ] && exec "$@"
exec sh -c "$*"
""",
    "script": r"""
c=
while [ $# -gt 0 ]; do
  case $1 in
    -c|--command) c=$2; shift 2 ;;
    --command=*) c=${1#--command=}; shift ;;
    -*c) c=$2; shift 2 ;;
    *) shift ;;
  esac
done
exec sh -c "$c"
""",
    "su": r"""
c=
while [ $# -gt 0 ]; do
  case $1 in
    -c|--command) c=$2; shift 2 ;;
    --command=*) c=${1#--command=}; shift ;;
    *) shift ;;
  esac
done
[ -n "$c" ] && exec sh -c "$c"
exec sh
""",
}
_EMULATED["doas"] = _EMULATED["sudo"]
# sudo(8) sets the VAR=value words before the command in its environment; doas takes none
_EMULATED["sudo"] = _EMULATED["sudo"].replace(
    "[ $# -gt 0 ] && exec",
    'while [[ $1 == [!=]*=* ]]; do export "$1"; shift; done\n[ $# -gt 0 ] && exec',
)
_EMULATED["toybox"] = _EMULATED["busybox"]

DRIVER = r"""
: > /w/x; : > /w/y
echo 'PATH=/stubs:$PATH' > /w/.bash_profile  # `bash -l` resets PATH in /etc/profile
base=(/proc/[0-9]*); base=${#base[@]}
i=0
while IFS= read -r -d '' s; do
  /usr/bin/mkdir -p /out/cur
  (cd /w && HOME=/w PATH=/stubs:/usr/bin /usr/bin/timeout -k 1 5 /bin/bash -c "$s" \
     </dev/null >/dev/null 2>&1)
  for _ in $(/usr/bin/seq 200); do  # whatever went to the background ends too
    p=(/proc/[0-9]*); [ ${#p[@]} -le $base ] && break
    /usr/bin/sleep 0.01
  done
  /usr/bin/mv /out/cur /out/$i
  i=$((i + 1))
done < /in/scripts
"""


def stub_text(name: str, rec: str = REC) -> str:
    """The stub for `name`, recording into the folder `rec` (a fixed path: `env -i` keeps it)."""
    head = _HEAD.replace("${__NAME}", name).replace("${__REC}", shlex.quote(rec))
    if name in FORBIDDEN_PROGRAMS:
        return head + "exit 0\n"
    if name in EXEC_RUNNERS:
        return head + f'exec /usr/bin/{name} "$@"\n'
    if name in ("sh", "dash"):
        return head + 'exec /usr/bin/dash "$@"\n'
    if name == "bash":
        return head + 'exec /usr/bin/bash "$@"\n'
    return head + _EMULATED[name]


STUBS = (*FORBIDDEN_PROGRAMS, *EXEC_RUNNERS, "sh", "dash", "bash", *sorted(_EMULATED))


def write_stubs(folder: Path, rec: str = REC, names: Sequence[str] = STUBS) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = folder / name
        path.write_text(stub_text(name, rec))
        path.chmod(0o755)


def system_mounts(stubs: Path, forbidden: Sequence[str]) -> list[str]:
    """The system read-only, scratch /tmp and /w, the stubs at /stubs and bound over
    /usr/bin/NAME for each of the `forbidden` programs installed here."""
    mounts = ["--dir", "/tmp", "--dir", "/w", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        p = Path(top)
        if p.is_symlink():
            mounts += ["--symlink", os.readlink(p), top]
        elif p.exists():
            mounts += ["--ro-bind", top, top]
    if Path("/etc").exists():  # dash, git and friends read a few files there
        mounts += ["--ro-bind", "/etc", "/etc"]
    for name in forbidden:
        if Path("/usr/bin", name).exists():
            mounts += ["--ro-bind", str(stubs / name), f"/usr/bin/{name}"]
    return [*mounts, "--ro-bind", str(stubs), "/stubs"]


def bash_runs(scripts: Sequence[str], *, timeout: float = 900) -> list[list[tuple[str, ...]]]:
    """The argvs each script made the stubs record (every process, in no set order)."""
    with tempfile.TemporaryDirectory(prefix="shellgate-evasion-") as tmp:
        d = Path(tmp)
        write_stubs(d / "stubs")
        mounts = system_mounts(d / "stubs", FORBIDDEN_PROGRAMS)
        out_dir = run_driver(d, scripts, DRIVER, mounts, "/usr/bin/bash", timeout)
        out: list[list[tuple[str, ...]]] = []
        for i in range(len(scripts)):
            folder = out_dir / str(i)
            if not folder.is_dir():
                raise RuntimeError(f"bash left no record folder for script {i} ({scripts[i]!r})")
            ran: list[tuple[str, ...]] = []
            for part in sorted(folder.iterdir()):
                ran.extend(records(part.read_bytes()))
            out.append(ran)
        return out


# git's own options before its subcommand (git.c handle_options): those that take a value
# as the next word, and flags.
GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                               "--exec-path", "--config-env", "--super-prefix", "--list-cmds",
                               "--attr-source"})  # fmt: skip


def git_subcommand(argv: Sequence[str]) -> str | None:
    i = 1
    while i < len(argv):
        word = argv[i]
        if word in GIT_VALUE_OPTIONS:
            i += 2
        elif word.startswith("-"):
            i += 1  # --no-pager, -p, -P, --bare, --git-dir=..., ...
        else:
            return word
    return None


def forbidden_program(argv: Sequence[str]) -> str | None:
    """The forbidden program an argv recorded by a stub is ("rm", "git push", ...), or None."""
    if not argv:
        return None
    name = argv[0]
    if name == "git":
        return "git push" if git_subcommand(argv) == "push" else None
    return name if name in FORBIDDEN_PROGRAMS else None
