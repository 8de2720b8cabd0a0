"""Inline code of interpreters other than Python: the calls that run a command, found by name.

A language is a row: the functions that run a command (`system("CMD")`: one literal string is
shell source, several are an argv), the quoted forms that do (backticks, `qx(...)`, `%x{...}`)
and how its strings interpolate. A literal command is judged as that command; a call whose
command is not a literal (a variable, a string with interpolation, an expression) is decided
at run time; code that calls none of them hands nothing over (judged as today). Python is read
with Python's own `ast` (`python.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shellgate.shell.programs.handed import Handed


@dataclass(frozen=True)
class Language:
    calls: re.Pattern[str]  # a function that runs a command; its arguments follow
    quoted: re.Pattern[str] | None = None  # a quoted command (group 1 its text)
    interpolates: str = ""  # characters that interpolate in a double-quoted string
    needs: str = ""  # the calls count only where this text appears (node: child_process)
    words: bool = False  # arguments separated by blanks (lisp, tcl), not commas


def _calls(names: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$>-])(?:{names})(?![\w-])")


_BACKTICK = r"`([^`]*)`"
LANGUAGES: dict[str, Language] = {
    "perl": Language(
        _calls(r"system|exec|readpipe|open"),
        re.compile(
            rf"{_BACKTICK}|\bqx\s*(?:\(([^)]*)\)|\{{([^}}]*)\}}|/([^/]*)/|'([^']*)'|\[([^\]]*)\])"
        ),
        interpolates="$@",
    ),
    "ruby": Language(
        _calls(r"system|exec|spawn|IO\.popen|Open3\.\w+|Kernel\.\w+|Process\.spawn|PTY\.spawn"),
        re.compile(rf"{_BACKTICK}|%x\s*(?:\(([^)]*)\)|\{{([^}}]*)\}}|\[([^\]]*)\])"),
        interpolates="#",
    ),
    "node": Language(
        _calls(r"exec|execSync|spawn|spawnSync|execFile|execFileSync"),
        needs="child_process",
    ),
    "php": Language(
        _calls(r"system|exec|passthru|shell_exec|popen|proc_open|pcntl_exec"),
        re.compile(_BACKTICK),
        interpolates="$",
    ),
    "lua": Language(_calls(r"os\.execute|io\.popen")),
    "r": Language(_calls(r"system|system2|shell|pipe")),
    "julia": Language(_calls(r"run|read|pipeline"), re.compile(_BACKTICK), interpolates="$"),
    "gnuplot": Language(_calls("system"), re.compile(rf"{_BACKTICK}|(?:^|;)\s*!(.*)")),
    "octave": Language(_calls(r"system|unix|shell_cmd|popen|popen2|dos")),
    "slsh": Language(_calls("system")),
    "lisp": Language(
        _calls(
            r"ext:run-shell-command|run-shell-command|ext:shell|system\*?|run-program|"
            r"ext:run-program|open-pipe\*?|open-input-pipe|open-output-pipe|execlp?"
        ),
        words=True,
    ),
    "elisp": Language(
        _calls(
            r"shell-command|shell-command-to-string|async-shell-command|call-process|"
            r"call-process-shell-command|start-process|start-process-shell-command|"
            r"process-file|make-process|term|ansi-term|shell|eshell|compile|vterm"
        ),
        words=True,
    ),
    "haskell": Language(
        _calls(
            r"callCommand|spawnCommand|system|rawSystem|readProcess|callProcess|"
            r"createProcess|shell|proc|runCommand|runInteractiveCommand|"
            r"System\.Process\.\w+|System\.Cmd\.\w+"
        ),
        words=True,
    ),
    "js": Language(_calls(r"exec|Runtime|ProcessBuilder|getRuntime\(\)\.exec")),
    "puppet": Language(re.compile(r"(?<![\w-])(?:exec\s*\{|command\s*=>)")),
    "tcl": Language(
        _calls(r"system"),
        re.compile(r'(?:^|[;\[\n{])\s*(?:exec|spawn)\s+([^;\]\n}]*)|open\s+"\|([^"]*)"'),
        words=True,
    ),
    "m4": Language(  # arguments are bare text: one with a macro call in it is built at run time
        re.compile(r"\b(?:esyscmd|syscmd)\((?=[^)]*\$)"),
        re.compile(r"\b(?:esyscmd|syscmd)\(([^)$]*)\)"),
    ),
}


def read(language: str, code: str, program: str, how: str) -> list[Handed]:
    """The commands `code` runs, in `language` (a key of LANGUAGES)."""
    lang = LANGUAGES.get(language)
    if lang is None or (lang.needs and lang.needs not in code):
        return []
    out: list[Handed] = []
    if lang.quoted is not None:
        for m in lang.quoted.finditer(code):
            text = next((g for g in m.groups() if g is not None), "")
            if lang.interpolates and any(c in text for c in lang.interpolates):
                out.append(Handed(program, how, runtime=f"{program} builds the command `{text}`"))
            elif text.strip():
                out.append(Handed(program, how, shell=text))
    for m in lang.calls.finditer(code):
        name = m.group()
        if name == "open" and language == "perl":
            out += _perl_open(code, m.end(), program, how)
            continue
        after = code[m.end() : m.end() + 40].lstrip(" \t")
        if after[:1] not in ("(", '"', "'", "$", "@", "[", "{", "`") and not (
            after[:1].isalnum() or after[:1] == "_"
        ):
            continue  # not a call: `/system/`, `system;`
        args = _literals(code, m.end(), lang)
        if args is None:
            why = f"{program}'s `{name}` runs a command built at run time"
            out.append(Handed(program, how, runtime=why))
        elif len(args) == 1 or any(c.isspace() for c in args[0]):
            out.append(Handed(program, f"{how}, `{name}`", shell=args[0]))
        elif args:
            out.append(Handed(program, f"{how}, `{name}`", argv=tuple(args)))
    return out


_SPACE = re.compile(r"[\s(]*")
_SEP = re.compile(r"\s*,\s*|\s+")
_END = re.compile(r"\s*(?:[);}\]]|$)")
_OPTIONS = re.compile(r"\s*,\s*\{")  # node's options object after the command


def _literals(code: str, at: int, lang: Language, depth: int = 0) -> list[str] | None:
    """The literal strings a call is given first (arrays flattened): up to its first argument
    that is not one (`proc_open("CMD", $spec, $pipes)`: the command); None when the first is
    not one (the command is built at run time)."""
    at = _SPACE.match(code, at).end()  # type: ignore[union-attr]
    args: list[str] = []
    while True:
        if code[at : at + 1] == "[":  # an array of literals: ["-c", "x"]
            if depth > 4:
                return None  # arrays in arrays: not a command line
            inner = _literals(code, at + 1, lang, depth + 1)
            close = code.find("]", at)
            if inner is None or close < 0:
                return args or None
            args += inner
            at = close + 1
        else:
            lit = _string(code, at, lang)
            if lit is None:
                return args or None
            value, at = lit
            args.append(value)
        if _END.match(code, at) or _OPTIONS.match(code, at):
            return args
        sep = _SEP.match(code, at)
        if sep is None or (sep.group().strip() != "," and not lang.words):
            return args
        at = sep.end()


_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}


def _string(code: str, at: int, lang: Language) -> tuple[str, int] | None:
    """A string literal at `at`: its value and where it ends; None if none, or one that
    interpolates."""
    quote = code[at : at + 1]
    if quote not in ("'", '"'):
        return None
    out: list[str] = []
    i = at + 1
    while i < len(code):
        c = code[i]
        if c == quote:
            return "".join(out), i + 1
        if c == "\\" and i + 1 < len(code):
            nxt = code[i + 1]
            out.append(
                _ESCAPES.get(nxt, nxt)
                if quote == '"'
                else ("\\" + nxt if nxt not in "\\'" else nxt)
            )
            i += 2
            continue
        interpolated = c != "#" or code[i + 1 : i + 2] == "{"  # ruby: `#{`, not `#`
        if quote == '"' and lang.interpolates and c in lang.interpolates and interpolated:
            return None
        out.append(c)
        i += 1
    return None


_PIPE_MODE = re.compile(r"\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*")


def _perl_open(code: str, at: int, program: str, how: str) -> list[Handed]:
    """Perl's `open(FH, "cmd |")`, `open(FH, "| cmd")`, `open(FH, "-|", "cmd", args)`."""
    m = _PIPE_MODE.match(code, at)
    if m is None:
        return []
    lang = LANGUAGES["perl"]
    first = _string(code, m.end(), lang)
    if first is None:
        why = f"{program}'s `open` may run a command built at run time"
        return [Handed(program, how, runtime=why)]
    value, end = first
    mode = value.strip()
    if mode in ("-|", "|-"):
        rest = _literals(code, _SEP.match(code, end).end(), lang)  # type: ignore[union-attr]
        if rest is None:
            return [
                Handed(
                    program,
                    how,
                    runtime=f"{program}'s piped `open` runs a command built at run time",
                )
            ]
        return (
            [Handed(program, f"{how}, piped `open`", shell=rest[0])]
            if len(rest) == 1
            else [Handed(program, f"{how}, piped `open`", argv=tuple(rest))]
        )
    if mode.startswith("|") or mode.endswith("|"):
        return [Handed(program, f"{how}, piped `open`", shell=mode.strip("|").strip())]
    return []
