"""GTFOBins' entries as spellings of a forbidden command (issue 24).

tests/evasion/gtfobins/ keeps, verbatim, the entries of GTFOBins (`_gtfobins/NAME` of the
repository GTFOBins/GTFOBins.github.io at the commit in COMMIT) that the host-program corpus
uses: a program with a `shell` or `command` function that Debian packages (README.md there says
which were left out and why). `spellings()` turns each such function's code into scripts that
run a forbidden command instead of the payload:

- the payload (`/bin/sh` with its options and redirections, `exec /bin/sh`, `/path/to/command`)
  becomes the command, as it is where it stands when it is inside quotes, and both as it is and
  quoted when it stands bare (an argv for `env`, `nice`, `find -exec`; one word for `tar`'s
  `--to-command`): real bash decides which of them runs it;
- a shell started alone (`bash`, `zsh`, `capsh --`) is handed the command with `-c`, and a
  few codes with no payload to replace are handed it by hand (`BY_HAND`: `sed e` reads it);
- `/bin/sh` copied or linked as a program (`ln -s /bin/sh git-x`) becomes a script running it;
- the placeholders `/path/to/...` become files in the script's folder;
- codes typed at an interactive program's prompt (a later line starting with `!`), and
  functions only for `sudo`/`suid` contexts, are not used.

The files are GTFOBins' own YAML; the few shapes they use are read here (no YAML library).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "gtfobins"
FUNCTIONS = ("shell", "command")


@dataclass(frozen=True)
class Code:
    program: str  # the entry's name (the file's)
    function: str  # shell, command, or inherit
    code: str
    contexts: tuple[str, ...]
    source: str = ""  # inherit: the entry it comes from


def _block(lines: list[str], i: int, indent: int) -> tuple[str, int]:
    """A `|-` block scalar starting at line i: its text and the next line's index."""
    out = []
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" " * indent)):
        out.append(lines[i][indent:])
        i += 1
    return "\n".join(out).rstrip("\n"), i


def parse(name: str, text: str) -> tuple[str | None, list[Code]]:
    """(the entry it is an alias of, or None; its shell, command and inherit codes)."""
    lines = text.splitlines()
    alias = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("alias:")), None)
    codes: list[Code] = []
    function = ""
    item: dict[str, object] = {}

    def close() -> None:
        if item.get("code") is not None and function in (*FUNCTIONS, "inherit"):
            contexts = item.get("contexts", ())
            assert isinstance(contexts, tuple)
            codes.append(Code(name, function, str(item["code"]), contexts,
                              str(item.get("from", ""))))  # fmt: skip

    i = 0
    while i < len(lines):
        line = lines[i]
        if re.fullmatch(r"  [a-z-]+:", line):  # a function
            close()
            item, function = {}, line.strip()[:-1]
        elif line.startswith("  - "):  # an item of it
            close()
            item = {}
            line = "    " + line[4:]
        m = re.fullmatch(r"    ([a-z-]+):(.*)", line)
        if m and m.group(1) == "code":
            if m.group(2).strip() == "|-":
                item["code"], i = _block(lines, i + 1, 6)
                continue
            item["code"] = m.group(2).strip()
        elif m and m.group(1) == "contexts":
            found = []
            i += 1
            while i < len(lines) and lines[i].startswith("      "):
                if re.fullmatch(r"      [a-z]+:.*", lines[i]):
                    found.append(lines[i].strip().split(":")[0])
                i += 1
            item["contexts"] = tuple(found)
            continue
        elif m and m.group(1) == "from":
            item["from"] = m.group(2).strip()
        i += 1
    close()
    return alias, codes


def commit() -> str:
    return (DATA / "COMMIT").read_text().split()[0]


def entries() -> dict[str, tuple[str | None, list[Code]]]:
    return {p.stem: parse(p.stem, p.read_text()) for p in sorted(DATA.glob("*.yml"))}


def codes() -> list[Code]:
    """The shell and command codes for an unprivileged user, aliases and bare-name inherits
    (`vim` from `vi`) resolved to their entry's codes under their own name."""
    table = entries()
    out: list[Code] = []
    for name, (alias, own) in table.items():
        if alias is not None:
            own = [Code(name, c.function, _rename(c.code, alias, name), c.contexts, alias)
                   for c in table[alias][1]]  # fmt: skip
        for c in own:
            if c.function == "inherit" and c.source in table and c.code.strip() == name:
                out += [Code(name, s.function, _rename(s.code, c.source, name), s.contexts,
                             c.source)
                        for s in table[c.source][1] if s.function in FUNCTIONS]  # fmt: skip
            elif c.function in FUNCTIONS:
                out.append(c)
    return [c for c in out if "unprivileged" in c.contexts]


def _rename(code: str, old: str, new: str) -> str:
    return re.sub(rf"(?m)(^|[\s|;&(]){re.escape(old)}(?=\s|$)", rf"\g<1>{new}", code)


# The payload: a shell (with its options and redirections, or an inner -c "..." it is handed)
# or a command path; not a shell handed a script in single quotes, whose script is the payload.
_SH_TAIL = r"""(?: -c "[^"]*"| -(?!c\b)[a-z]+| --| \d?[<>]&\d| \d?[<>] ?/dev/tty|\
 \d?[<>]\$\(tty\))*"""
PAYLOAD = re.compile(
    r"(?:(?:^|(?<=[;'\"|&(\n])) ?exec )?"
    r"(?<![\w./-])/bin/sh(?![\w/.,-])(?! -c ')" + _SH_TAIL + "|@COMMAND@"
)
_PROGRAM_FILE = re.compile(r"(?m)^(?:ln -s|cp) (?:/bin/sh|/path/to/command) (\S+)$")
_PLACES = (
    ("/path/to/command", "@COMMAND@"),
    ("/path/to/temp-file", "t"),
    ("/path/to/temp-dir/", "d/"),
    ("/path/to/temp-dir", "d"),
    ("/path/to/input-file", "y"),
    ("/path/to/output-file", "o"),
    ("/path/to/CMakeLists.txt", "CMakeLists.txt"),
    ("/path/to/dir/", "m/"),
    ("/path/to/", "./"),
)
# Keys pressed once the program is up (`reset` after less, `v` to start the editor).
_KEYS = re.compile(r"(?m)\n(?:reset|[a-zA-Z]|# press .*)$")
# Codes with no payload to replace, handed the command by hand ({c}: as is, {q}: quoted,
# {commas}: its words joined by commas).
BY_HAND = {
    "sed e": "echo {q} | sed e",  # sed runs each input line
    "ed\n!/bin/sh\nq": "printf '%s\\n' {bang} q | ed",  # ed reads its commands from stdin
    "ex\n!/bin/sh\nq": "printf '%s\\n' {bang} q | ex",
    "gcc -wrapper /bin/sh,-s x": "gcc -wrapper {commas} x",
    "man '-H/bin/sh #' man": "man '-H{c} #' man",
    "socat - exec:/bin/sh,pty,ctty,raw,echo=0": "socat - exec:{q},pty,ctty,raw,echo=0",
}


def _quoting(text: str, at: int) -> str:
    """Where offset `at` stands in bash text: "single", "double" or "bare"."""
    state = "bare"
    i = 0
    while i < at:
        ch = text[i]
        if state == "single":
            state = "bare" if ch == "'" else state
        elif ch == "\\":
            i += 1
        elif state == "double":
            state = "bare" if ch == '"' else state
        elif ch == "'":
            state = "single"
        elif ch == '"':
            state = "double"
        i += 1
    return state


def interactive(code: str) -> bool:
    """Later lines typed at the program's prompt, not run by bash."""
    return any(ln.startswith(("!", "^", ":", "\\")) for ln in code.splitlines()[1:])


def derive(code: str, command: str) -> list[str]:
    """The scripts that hand `command` to the program as `code` hands it the payload."""
    text = _KEYS.sub("", code)

    def program_file(m: re.Match[str]) -> str:
        path = m.group(1) + ("sh" if m.group(1).endswith("/") else "")
        made = f"mkdir -p {m.group(1)}; " if m.group(1).endswith("/") else ""
        return (f"{made}printf '#!/usr/bin/sh\\n%s\\n' {shlex.quote(command)} >{path}; "
                f"chmod +x {path}")  # fmt: skip

    text = _PROGRAM_FILE.sub(program_file, text)
    for place, here in _PLACES:
        text = text.replace(place, here)
    if code in BY_HAND:
        return [BY_HAND[code].format(c=command, q=shlex.quote(command),
                                     bang=shlex.quote("!" + command),
                                     commas=",".join(command.split()))]  # fmt: skip
    found = list(PAYLOAD.finditer(text))
    if not found and "\n" not in text:  # `bash`, `capsh --`, `script -q /dev/null`: a shell
        return [f"{text} -c {shlex.quote(command)}"]
    variants = [""]
    pos = 0
    for m in found:
        where = _quoting(text, m.start())
        lead = text[pos : m.start()]
        choices = [command]
        if where == "bare":
            choices.append(shlex.quote(command))
        elif where == "double":
            choices = [command.replace('"', '\\"')]
        variants = [v + lead + c for v in variants for c in choices]
        pos = m.end()
    return [t for v in variants if command in (t := v + text[pos:])]


@dataclass(frozen=True)
class Derived:
    program: str
    index: int  # which of the program's codes
    function: str
    code: str  # GTFOBins' own
    text: str  # with the forbidden command


def spellings(command: str) -> Iterator[Derived]:
    """Every usable code of every kept entry, with `command` as its payload."""
    seen: dict[str, int] = {}
    for c in codes():
        index = seen[c.program] = seen.get(c.program, -1) + 1
        if interactive(c.code):
            continue
        for text in derive(c.code, command):
            yield Derived(c.program, index, c.function, c.code, text)


def skipped() -> list[tuple[Code, str]]:
    """The codes of kept entries not turned into spellings, and why."""
    out = []
    for c in codes():
        if interactive(c.code):
            out.append((c, "typed at the program's prompt"))
        elif not derive(c.code, "rm -rf x"):
            out.append((c, "no payload to replace"))
    return out
