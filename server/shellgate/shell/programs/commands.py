"""Programs' own command languages, where an escape runs shell source: vim's `:!CMD` and
`system()`, gdb's `shell CMD`, sqlite3's `.shell CMD`, mysql's `\\! CMD`, socat's `SYSTEM:CMD`,
make's `$(shell CMD)`, rpm's `%(CMD)`, hg's `alias.x=!CMD`, TeX's `\\write18{CMD}`, ...

A row is a list of escapes: a pattern whose first matching group is the text, and what the text
is (`shell` source; code in another language, read by that language's reader; `runtime`: a
file sourced, an interactive shell, code loaded). Commands without an escape hand nothing over.
"""

from __future__ import annotations

import re

from shellgate.shell.programs.handed import Handed

_I = re.IGNORECASE | re.MULTILINE
_Escape = tuple[re.Pattern[str], str]


def _e(pattern: str, kind: str = "shell", flags: int = re.MULTILINE) -> _Escape:
    return re.compile(pattern, flags), kind


_STRING = r"""["']((?:[^"'\\]|\\.)*)["']"""
ESCAPES: dict[str, tuple[_Escape, ...]] = {
    "vim": (
        _e(r"(?:^|[:|]|\b(?:r|read|w|write)\s+|(?<![\d.$%,'<>])[\d.$%,'<>]+)\s*!\s*(\S.*)"),
        _e(rf"\bsystem(?:list)?\s*\(\s*{_STRING}\s*[,)]"),
        _e(r"(?:^|[:|])\s*(?:py3?|python3?|pyx|pythonx)(?:do)?\s+(.*)", "python"),
        _e(r"(?:^|[:|])\s*(?:lua|luado)\s+(.*)", "lua"),
        _e(r"(?:^|[:|])\s*(?:perl|perldo)\s+(.*)", "perl"),
        _e(r"(?:^|[:|])\s*(?:rub|ruby|rubydo)\s+(.*)", "ruby"),
        _e(
            r"(?:^|[:|])\s*((?:sh|she|shel|shell|ter|term|termi|termin|termina|terminal|so|sou|"
            r"sour|sourc|source|runtime|exe|exec|execu|execut|execute|mz|mzscheme|tcl|py3f|pyf|"
            r"luafile|rubyfile|perlfile)\b.*)",
            "runtime",
        ),
        _e(r"\b(system(?:list)?\s*\(\s*(?![\"'])|libcall|(?:set|let)\s+&?shell)", "runtime"),
    ),
    "gdb": (
        _e(r"^\s*(?:!|shell\s+)(.*)"),
        _e(r"^\s*(?:pipe|\|)\s.*?\|\s*(.*)"),
        _e(r"^\s*(?:python|py|pi|python-interactive)\s+(.*)", "python"),
        _e(
            r"^\s*((?:source|guile|gu|python-interactive|pi|py|python)\s*$|(?:source|guile|gu)\s.*)",
            "runtime",
        ),
    ),
    "mail": (_e(r"^\s*(?:!|shell\s+|sh\s+)(.*)"), _e(r"^\s*(?:pipe|\|)\s+(.*)")),
    "fzf": (
        _e(
            r"(?:execute|execute-silent|become|reload|reload-sync|preview|change-preview|"
            r"transform\w*)(?:\(([^)]*)\)|\[([^\]]*)\]|\{([^}]*)\}|:(.*))"
        ),
    ),
    "sysctl": (
        _e(r"kernel\.core_pattern\s*=\s*\|\s*(.*)"),
        _e(r"kernel\.(?:modprobe|poweroff_cmd|hotplug)\s*=\s*(\S.*)", "argv"),
    ),
    "dc": (_e(r"!(?![<>=])(.*)"),),
    "lftp": (_e(r"(?:^|;)\s*!(.*)"), _e(r"(?:^|;)\s*(source\s+-e.*)", "runtime")),
    "mysql": (_e(r"(?:^|;)\s*(?:\\!|system\s)\s*(.*)", "shell", _I),),
    "psql": (
        _e(r"\\!\s*(.*)"),
        _e(r"\\[og]\s*\|\s*(.*)"),
        _e(r"\bprogram\s+'((?:[^']|'')*)'", "shell", _I),
    ),
    "sqlite3": (
        _e(r"^\s*\.(?:shell|system)\s+(.*)"),
        _e(r"""^\s*\.(?:once|output|import|read)\s+(?:-\w+\s+)*['"]?\|\s*([^'"\n]*)"""),
        _e(r"^\s*(\.load\b.*)", "runtime"),
    ),
    "socat": (_e(r"(?:^|!!)(?:system|exec):((?:[^,!\\]|\\.)*)", "shell", re.IGNORECASE),),
    "make": (
        _e(r"\$[({]shell\s+(.*?)[)}]"),
        _e(r"^[^=\n#:]*:(?![=:])[^;\n=]*;(.*)"),
        _e(r"^\t(.*)"),
    ),
    "hg": (
        _e(r"^\s*alias\.[^=]+=\s*!(.*)"),
        _e(
            r"^\s*(?:hooks\.[^=]+|ui\.editor|ui\.ssh|ui\.merge|pager\.pager|"
            r"merge-tools\.[^=]+\.executable)=\s*(?!python:)(.+)",
            "shell",
            _I,
        ),
        _e(r"^\s*((?:hooks\.[^=]+=\s*python:|extensions\.[^=]+=\s*\S).*)", "runtime", _I),
    ),
    "rpm": (_e(r"%\((.*)\)"), _e(r"(%\{lua:.*)", "runtime")),
    "tex": (
        _e(r"\\write18\s*\{(.*?)\}"),
        _e(r"""\\(?:input|openin|openout)\s*[{"]?\|\s*"?([^"}]*)"""),
    ),
}


MAX_TEXT = 8 << 10  # characters of a command language or inline code read by patterns


def read(language: str, text: str, program: str, how: str, depth: int = 0) -> list[Handed]:
    """The commands `text`, in `program`'s command language, runs."""
    if len(text) > MAX_TEXT:
        return [_too_long(program, how, text)]
    out: list[Handed] = []
    for pattern, kind in ESCAPES.get(language, ()):
        for m in pattern.finditer(text):
            value = next((g for g in m.groups() if g is not None), "").strip()
            if kind == "shell" and value:
                out.append(Handed(program, how, shell=value))
            elif kind == "argv" and value:
                out.append(Handed(program, how, argv=(value,)))
            elif kind == "runtime":
                why = f"{program} runs `{value[:60]}` (decided at run time)"
                out.append(Handed(program, how, runtime=why))
            elif value and depth < 2:
                out += code_of(kind, value, program, f"{how}, {kind} code")
    return out


def _too_long(program: str, how: str, text: str) -> Handed:
    why = f"{program} is given {len(text)} characters of code, more than ShellGate reads"
    return Handed(program, how, runtime=why)


def code_of(language: str, code: str, program: str, how: str) -> list[Handed]:
    """Inline code in `language`, read by that language's reader (patterns read at most
    MAX_TEXT characters; longer code is decided at run time)."""
    if language != "python" and len(code) > MAX_TEXT:
        return [_too_long(program, how, code)]
    if language == "python":
        from shellgate.shell.programs import python  # deferred: ast (~2 ms), for Python only

        return python.read(code, program, how)
    if language == "awk":
        from shellgate.shell.programs import awk  # deferred: awk programs are rare

        return awk.read(code, program, how)
    if language == "sed":
        from shellgate.shell.programs import sed  # deferred: sed scripts with `e` are rare

        return sed.read(code, program, how)
    from shellgate.shell.programs import code as languages  # deferred: other languages' table

    return languages.read(language, code, program, how)
