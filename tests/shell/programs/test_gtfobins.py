"""Every GTFOBins spelling with a `shell` or `command` function (gtfobins.json, with its commit),
its payload made `/bin/rm`, read by bash_runs: the program's hand-over is seen (a run of `rm`, or
a run handed on by the program), unless the program is out of reach for a named reason."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from shellgate.shell.bash_runs import bash_runs
from shellgate.shell.programs.table import GTFOBINS_COMMIT

DATA = json.loads((Path(__file__).parent / "gtfobins.json").read_text())

_INTERACTIVE = "runs what is typed into it once it runs (a prompt, a key, a pager's `!`)"
_SHELL = "is a shell itself: the rules judge it by its own name"
_FILES = "runs code from files written earlier (a project's scripts, hooks, a build file)"
_PACKAGE = "installs a package, whose scripts run: code in files written earlier"
OUT_OF_REACH = {
    **dict.fromkeys(
        [
            "ash",
            "bash",
            "csh",
            "dash",
            "elvish",
            "fish",
            "posh",
            "rc",
            "sash",
            "tcsh",
            "yash",
            "zsh",
            "pwsh",
            "ksh",
        ],
        _SHELL,
    ),
    **dict.fromkeys(
        [
            "ansible-test",
            "asterisk",
            "bconsole",
            "debugfs",
            "ed",
            "ftp",
            "ghci",
            "ginsh",
            "hping3",
            "iftop",
            "ispell",
            "jjs",
            "joe",
            "jshell",
            "jtag",
            "loginctl",
            "mail",
            "minicom",
            "more",
            "nano",
            "ncdu",
            "ncftp",
            "nmap",
            "opencode",
            "pg",
            "pic",
            "psftp",
            "psql",
            "ranger",
            "rtorrent",
            "scanmem",
            "screen",
            "script",
            "sftp",
            "smbclient",
            "systemd-run",
            "tasksh",
            "tclsh",
            "tdbtool",
            "telnet",
            "tmux",
            "top",
            "zathura",
            "dotnet",
            "java",
            "crontab",
            "fzf",
            "sg",
            "chroot",
            "less",
            "docker",
        ],
        _INTERACTIVE,
    ),
    **dict.fromkeys(
        [
            "acr",
            "ansible-playbook",
            "arch-nspawn",
            "cobc",
            "dvips",
            "fail2ban-client",
            "go",
            "zypper",
            "systemctl",
        ],
        _FILES,
    ),
    **dict.fromkeys(["dnf", "dpkg", "pkg", "rpm", "snap", "yum", "opkg", "ctr"], _PACKAGE),
}
# The file a spelling writes before the program reads it, written in the same script: the whole
# spelling is read (programs/files.py reads what the script wrote).
WRITES_THEN_RUNS = frozenset({"bundle", "cmake", "composer", "npm", "yarn", "git", "lxd"})
_PAYLOAD = re.compile(r"/bin/sh|/path/to/command")


def _line(program: str, code: str) -> str | None:
    """The spelling's line that runs the program: the one holding the payload, else the
    last one naming the program."""
    lines = [line for line in code.split("\n") if line.strip()]
    named = [line for line in lines if re.search(rf"(?:^|[\s/']){re.escape(program)}", line)]
    paid = [line for line in named if _PAYLOAD.search(line)]
    return (paid or named or [None])[-1]


def _spellings() -> list[tuple[str, str]]:
    out = []
    for program, entries in DATA["programs"].items():
        if program in OUT_OF_REACH:
            continue
        for entry in entries:
            line = entry["code"] if program in WRITES_THEN_RUNS else _line(program, entry["code"])
            if line is not None:
                out.append((program, _PAYLOAD.sub("/bin/rm", line)))
    return out


SPELLINGS = _spellings()


def test_the_data_is_the_table_s_source() -> None:
    assert DATA["commit"] == GTFOBINS_COMMIT
    assert len(DATA["programs"]) >= 240


@pytest.mark.parametrize(("program", "line"), SPELLINGS)
def test_a_gtfobins_spelling_is_seen(program: str, line: str) -> None:
    runs = bash_runs(line)
    seen = any(
        (r.words and os.path.basename(r.words[0]) == "rm") or r.handed is not None for r in runs
    )
    assert seen, (program, line, runs)


def test_what_is_out_of_reach_is_named_and_few() -> None:
    names = set(DATA["programs"]) | set(DATA["aliases"])
    assert set(OUT_OF_REACH) <= names | {"ksh"}
    reached = {p for p, _ in SPELLINGS}
    assert len(reached) >= 150 and not reached & set(OUT_OF_REACH)
