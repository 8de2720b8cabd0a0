"""Files a script writes and then has a program run (`echo 'rm x' > s.sh; bash s.sh`,
`cat > x.py <<EOF … EOF; python3 x.py`, a `CMakeLists.txt`, a `package.json`'s scripts, a git
hook): the file's text, when the script wrote it literally (`echo`, `printf`, `cat <<EOF`),
is read as the program reads it; written any other way, it is known only at run time (asked).
Files written before the script (a project's own) stay out of reach (docs/programs.md).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping

from shellgate.shell.paths import executable_name_lookup_key
from shellgate.shell.programs.handed import Handed

Written = Mapping[str, str | None]  # path as written -> its text (None: decided at run time)

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish",
                     "csh", "tcsh", "source", ".", "busybox"})  # fmt: skip
_LANGUAGES = {"python": "python", "python2": "python", "python3": "python", "pypy3": "python",
              "perl": "perl", "ruby": "ruby", "node": "node", "nodejs": "node", "php": "php",
              "lua": "lua", "Rscript": "r", "julia": "julia"}  # fmt: skip
_PROJECT = {  # program -> (the file it reads, as a basename or a path fragment; its language)
    **dict.fromkeys(("make", "gmake"), (("Makefile", "makefile", "GNUmakefile"), "make")),
    "cmake": (("CMakeLists.txt",), "cmake"),
    **dict.fromkeys(("npm", "yarn", "pnpm", "bun"), (("package.json",), "scripts")),
    "composer": (("composer.json",), "scripts"),
    **dict.fromkeys(("bundle", "bundler"), (("Gemfile",), "ruby")),
    "git": ((".git/hooks/",), "shell"),
}
_CMAKE = re.compile(r"\b(?:execute_process|exec_program)\s*\(\s*(?:COMMAND\s+)?([^)]*)\)", re.I)
_CMAKE_END = re.compile(r"\s(?:COMMAND|WORKING_DIRECTORY|OUTPUT_VARIABLE|RESULT_VARIABLE|ERROR_"
                        r"VARIABLE|TIMEOUT|INPUT_FILE|OUTPUT_FILE|ARGS)\b.*", re.S)  # fmt: skip


def norm(path: str) -> str:
    return posixpath.normpath(path) if path else path


def files_run(words: tuple[str, ...], written: Written) -> list[Handed]:
    """What the command `words` runs from files written earlier in the same script."""
    name = executable_name_lookup_key(words[0]) or words[0]
    out: list[Handed] = []
    first = norm(words[0])
    if "/" in words[0] and first in written:  # `./s.sh`: the file itself is run
        out += _read(words[0], written[first], _shebang(written[first]), f"runs `{words[0]}`")
    language = "shell" if name in _SHELLS else _LANGUAGES.get(name)
    if language is not None or name in ("awk", "gawk", "mawk", "sed", "make", "gmake"):
        for word in words[1:]:
            path = norm(word)
            if path not in written:
                continue
            lang = language or ("make" if "make" in name else "sed" if name == "sed" else "awk")
            out += _read(name, written[path], lang, f"its file `{word}`, written earlier")
    project = _PROJECT.get(name)
    if project is not None:
        names, lang = project
        for path, text in written.items():
            hit = any((n.endswith("/") and n in f"/{path}/") or posixpath.basename(path) == n
                      for n in names)  # fmt: skip
            if hit:
                out += _read(name, text, lang, f"`{path}`, written earlier in this script")
    if name == "git":  # configuration the script wrote (`printf '[alias]…' >> .git/config`)
        from shellgate.shell.programs.git import read_written  # deferred: git's family (~1 ms)

        out += read_written(words, frozenset(), written)
    return out


def _shebang(text: str | None) -> str:
    line = (text or "").split("\n", 1)[0]
    if not line.startswith("#!"):
        return "shell"
    interpreter = line[2:].split()
    names = [posixpath.basename(w) for w in interpreter]
    if names and names[0] == "env" and len(names) > 1:
        names = names[1:]
    return _LANGUAGES.get(names[0], "shell") if names else "shell"


def _read(program: str, text: str | None, language: str, how: str) -> list[Handed]:
    if text is None:
        why = f"`{program}` runs {how.removeprefix('runs ')}, whose text is known only at run time"
        return [Handed(program, how, runtime=why)]
    if language == "shell":
        return [Handed(program, how, shell=text)] if text.strip() else []
    if language == "cmake":
        out = []
        for m in _CMAKE.finditer(text):
            command = _CMAKE_END.sub("", " " + m.group(1)).strip()
            if command:
                out.append(Handed(program, how, shell=command))
        return out
    if language == "scripts":
        try:
            scripts = json.loads(text).get("scripts", {})
        except (ValueError, AttributeError):
            return [Handed(program, how, runtime=f"`{program}` reads {how} (not JSON)")]
        values = scripts.values() if isinstance(scripts, dict) else ()
        flat = [v for x in values for v in (x if isinstance(x, list) else [x])]
        return [Handed(program, how, shell=v) for v in flat if isinstance(v, str)]
    from shellgate.shell.programs.commands import code_of, read  # deferred: the languages' table

    if language == "make":
        return read("make", text, program, how)
    return code_of(language, text, program, how)
