"""The README's import examples print what it shows: each `$ shellgate import …` block of its
import section is run, in order, from the checkout with an empty `~/.codex` under a temporary
HOME, and its output compared line for line (a `…` line stands for lines cut)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_VARS = ("HISTFILE", "ZDOTDIR", "XDG_DATA_HOME", "XDG_STATE_HOME", "CODEX_HOME",
         "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME")  # fmt: skip


def _examples() -> list[tuple[str, list[str]]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### `shellgate import`") : readme.index("## In the editor")]
    blocks = re.findall(r"```\n\$ (shellgate import .*?)\n(.*?)```", section, re.DOTALL)
    return [(command, shown.splitlines()) for command, shown in blocks]


def _matches(shown: list[str], printed: list[str]) -> bool:
    """`shown` is `printed`, except that a `…` line stands for any lines; a block that ends
    early is the start of what was printed (the README abridges)."""
    if "…" in shown:
        cut = shown.index("…")
        head, tail = shown[:cut], shown[cut + 1 :]
        return printed[: len(head)] == head and printed[len(printed) - len(tail) :] == tail
    return printed[: len(shown)] == shown


def test_readme_import_examples_print_what_they_show(tmp_path: Path) -> None:
    examples = _examples()
    assert len(examples) == 4  # one import from each tool, and one with --history
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in _VARS}
    env["HOME"] = str(home)
    for command, shown in examples:
        argv = shlex.split(command.replace("~/", f"{home}/"))
        redirect = argv.index(">") if ">" in argv else None  # `> /dev/null`: the report alone
        if redirect is not None:
            argv = argv[:redirect]
        run = subprocess.run([sys.executable, "-m", "shellgate", *argv[1:]], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
        assert run.returncode == 0, run.stderr
        printed = (run.stderr if redirect is not None else run.stdout + run.stderr).splitlines()
        while printed and not printed[-1]:
            printed.pop()
        assert _matches(shown, printed), (command, "\n".join(printed))
