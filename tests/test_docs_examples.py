"""Every `$ shellgate …` example of README.md and docs/*.md prints what the page says.

An example is a fenced block whose first line is a `$ ` command and one of whose commands runs
`shellgate`. Each page's examples run in order, in one bash per block, from the repository's
root, with a throwaway HOME shared by the page's blocks (so the imports of docs/import.md build
on each other), a clean environment (PATH: this Python's bin folder, where the installed
`shellgate` is, then /usr/bin:/bin) and nothing on stdin. A command's output is its standard
output and standard error together, as a terminal shows them; `$ echo $?` works.

A page may prepare a block with an HTML comment right before it, which readers of the rendered
page do not see and which runs in the block's bash first (`$ROOT` is the repository):

    <!-- example-setup
    mkdir -p ~/.codex/rules ~/demo && cd ~/demo
    echo 'prefix_rule(pattern=["rm"], decision="forbidden")' > ~/.codex/rules/x.rules
    -->

`<!-- example-setup (one command)` says that only the block's first line is a command: the
`$ ` lines after it are output (the agent prints the commands it runs so).

Compared line for line, after these normalisations only:
- the throwaway HOME prints as `~` (pages show `~/.codex/…`);
- a relative time (`23 minutes ago`, `just now`) matches any relative time, and a duration in
  milliseconds (`80 ms`) any duration;
- the port of a server on 127.0.0.1 (the agent's stand-in model) matches any port;
- a line holding only `…` on the page stands for any number of printed lines;
- trailing blank lines are dropped.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```")
_SETUP = re.compile(r"<!-- example-setup( \(one command\))?\n((?:(?!-->).)*)\n-->\s*", re.DOTALL)
_WHEN = re.compile(r"\b\d+ (?:second|minute|hour|day|week|month|year)s? ago\b|\bjust now\b")
_MS = re.compile(r"\b\d+ ms\b")
_PORT = re.compile(r"\b127\.0\.0\.1:\d+")
_MARK = "@@docs-example-{}@@"


@dataclass(frozen=True)
class Example:
    page: str
    line: int  # of the first command, 1-based
    setup: str
    commands: tuple[str, ...]
    shown: tuple[tuple[str, ...], ...]  # what the page says each command prints


def examples(page: Path) -> list[Example]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    i = 0
    while i < len(lines):
        if not _FENCE.match(lines[i]):
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if _FENCE.match(lines[j]))
        body = lines[i + 1 : end]
        runs = [b[2:] for b in body if b.startswith("$ ")]
        ours = any(re.search(r"(^|\| )shellgate ", r) for r in runs)
        if body and body[0].startswith("$ ") and ours:
            before = "\n".join(lines[:i])
            setup = _SETUP.fullmatch(before[before.rfind("<!-- example-setup") :])
            one = bool(setup and setup.group(1))  # the `$ ` lines after the first are output
            commands: list[str] = []
            shown: list[list[str]] = []
            for b in body:
                if b.startswith("$ ") and not (one and commands):
                    commands.append(b[2:])
                    shown.append([])
                else:
                    shown[-1].append(b)
            found.append(Example(page.relative_to(ROOT).as_posix(), i + 2,
                                 setup.group(2) if setup else "", tuple(commands),
                                 tuple(tuple(s) for s in shown)))  # fmt: skip
        i = end + 1
    return found


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr interleave as on a terminal
        "XDG_RUNTIME_DIR": str(home / ".run"),  # no editor's broker of this machine answers
        "ROOT": str(ROOT),
    }


def _run(example: Example, home: Path) -> list[list[str]]:
    """What each command of the block printed, HOME shown as `~`."""
    script = ["exec 2>&1", 'cd "$ROOT"', example.setup]  # the setup's output goes before a mark
    for n, command in enumerate(example.commands):
        # the mark keeps $? for a `$ echo $?`
        script += [f"rc=$?; echo '{_MARK.format(n)}'; (exit $rc)", command]
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, env=_env(home),
                         stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    out = run.stdout
    for path in {str(home.resolve()), str(home)}:
        out = out.replace(path, "~")
    printed: list[list[str]] = []
    for line in out.splitlines():
        if line == _MARK.format(len(printed)):
            printed.append([])
        elif printed:
            printed[-1].append(line)
    assert len(printed) == len(example.commands), f"{example.page}:{example.line}: {run.stdout}"
    return printed


def _normal(line: str) -> str:
    line = _PORT.sub("127.0.0.1:<port>", _MS.sub("<ms>", line))
    return _WHEN.sub("<when>", line)


def matches(shown: list[str], printed: list[str]) -> bool:
    """`shown` is `printed`, a lone `…` line standing for any number of lines."""
    shown, printed = [_normal(s) for s in shown], [_normal(p) for p in printed]
    for lines in (shown, printed):
        while lines and not lines[-1].strip():
            lines.pop()
    if "…" not in shown:
        return shown == printed
    cut = shown.index("…")
    head, rest = shown[:cut], shown[cut + 1 :]
    if printed[: len(head)] != head:
        return False
    return any(matches(rest, printed[k:]) for k in range(len(head), len(printed) + 1))


@cache
def _results(tmp: Path) -> dict[str, list[tuple[Example, list[list[str]]]]]:
    """Every page's examples, pages in parallel, each page's blocks in order."""

    def page(p: Path) -> tuple[str, list[tuple[Example, list[list[str]]]]]:
        home = tmp / p.relative_to(ROOT).as_posix().replace("/", "-") / "home"
        (home / ".run").mkdir(parents=True, mode=0o700)
        return p.relative_to(ROOT).as_posix(), [(e, _run(e, home)) for e in examples(p)]

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(pool.map(page, PAGES))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory):
    return _results(tmp_path_factory.mktemp("docs-examples"))


def test_the_pages_hold_examples() -> None:
    """The finder finds them (a change of format would otherwise pass every page vacuously)."""
    counts = {p.relative_to(ROOT).as_posix(): len(examples(p)) for p in PAGES}
    assert counts["README.md"] >= 1 and counts["docs/import.md"] == 4, counts
    assert counts["docs/run.md"] >= 4 and counts["docs/replay.md"] >= 1, counts
    assert sum(counts.values()) >= 15, counts


@pytest.mark.parametrize("page", [p.relative_to(ROOT).as_posix() for p in PAGES])
def test_examples_print_what_the_page_says(page: str, results) -> None:
    wrong = [
        f"{page}:{example.line}: `$ {command}` printed:\n" + "\n".join(got)
        for example, printed in results[page]
        for command, shown, got in zip(example.commands, example.shown, printed, strict=True)
        if not matches(list(shown), got)
    ]
    if wrong:
        pytest.fail("\n\n".join(wrong), pytrace=False)


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for a page's headings."""
    heads = re.findall(r"^#+ (.*)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_links_between_the_pages_resolve() -> None:
    """README.md and docs/ link each other (and the code) by relative paths: each names a file
    or folder that exists, and a `#anchor` a heading of that page."""
    broken = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            where = (page.parent / path).resolve() if path else page
            if not where.exists() or (anchor and where.suffix == ".md"
                                      and anchor not in _anchors(where)):  # fmt: skip
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_the_readme_commands_are_what_ci_and_the_demo_run() -> None:
    """The front page's two commands exist, and CI (`.ci/run`) runs the README's test command."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^bash scripts/demo\.sh\b", readme, re.MULTILINE)
    assert re.search(r"^bash scripts/test\.sh\b", readme, re.MULTILINE)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == "bash scripts/test.sh", ci[-1]
    assert (ROOT / "scripts" / "demo.sh").is_file() and (ROOT / "scripts" / "test.sh").is_file()
