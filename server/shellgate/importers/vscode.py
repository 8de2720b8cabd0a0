"""VS Code: `chat.tools.terminal.autoApprove` in user or workspace settings.json (JSONC).

Keys are command starts or `/regex/flags`; values `true` (approve), `false` (never approve:
always ask), `null` (unset a default) or `{"approve": bool, "matchCommandLine": bool}`. VS Code
checks every sub-command: all must be approved and none refused, so `false` wins over `true`,
which is Codex's strictest-wins. A string key matches a sub-command that starts with it at a
word boundary (VS Code builds `^<key>\\b`); a regex key is searched anywhere in the
sub-command unless it starts with `^`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from shellgate.importers.errors import ImportInputError
from shellgate.importers.jsonpos import Node, parse_json
from shellgate.importers.model import Combine, Entry, Kind, Origin, Source, Tool
from shellgate.importers.regex_prefixes import NotPlain, expand
from shellgate.importers.source import read_source
from shellgate.importers.words import prefix_words

SETTING = "chat.tools.terminal.autoApprove"
ENABLE = "chat.tools.terminal.enableAutoApprove"
_REGEX_KEY = re.compile(r"^/(.+)/([dgimsuvy]*)$", re.DOTALL)
_OBJECT_KEYS = frozenset({"approve", "matchCommandLine"})


def default_files(
    cwd: Path, *, home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[Path]:
    env = os.environ if env is None else env
    config = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else None
    user = (config or (home or Path.home()) / ".config") / "Code" / "User" / "settings.json"
    return [p for p in (user, cwd / ".vscode" / "settings.json") if p.is_file()]


def read(paths: Sequence[Path]) -> Source:
    entries: list[Entry] = []
    notes: list[str] = []
    for path in paths:
        got, more = read_file(path)
        entries += got
        notes += more
    return Source(
        Tool.VSCODE,
        tuple(str(p) for p in paths),
        tuple(entries),
        (),
        default=Kind.ASK,
        combine=Combine.STRICTEST,
        notes=tuple(notes),
    )


def read_file(path: Path) -> tuple[list[Entry], list[str]]:
    text = read_source(path)
    name = str(path)
    root = parse_json(text, name, comments=True, trailing_commas=True)
    if not isinstance(root.value, dict):
        raise _bad(name, root, "the settings file must hold a JSON object")
    notes: list[str] = []
    enable = root.value.get(ENABLE)
    if enable is not None and enable.value is False:
        notes.append(f"{name}: `{ENABLE}` is false, so VS Code approves nothing automatically")
    setting = root.value.get(SETTING)
    if setting is None:
        return [], notes
    if not isinstance(setting.value, dict):
        raise _bad(name, setting, f"`{SETTING}` must be an object")
    entries: list[Entry] = []
    for key, node in setting.value.items():
        line, column = setting.key_position(key)
        origin = Origin(name, line, column, f"{SETTING}[{key!r}]", key)
        value = node.value
        match_line = False
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in _OBJECT_KEYS:
                    line, column = node.key_position(k)
                    raise _bad(
                        name,
                        Node(None, line, column),
                        f"unknown key `{k}` (VS Code knows approve, matchCommandLine)",
                    )
                if not isinstance(v.value, bool):
                    raise _bad(name, v, f"`{k}` must be true or false")
            if "approve" not in value:
                raise _bad(name, node, "the object form needs `approve`: true or false")
            match_line = bool(value.get("matchCommandLine", Node(False, 0, 0)).value)
            value = value["approve"].value
        if value is None:
            continue  # unsets one of VS Code's defaults; nothing to carry over
        if not isinstance(value, bool):
            raise _bad(
                name, node, "a value must be true, false, null or {approve, matchCommandLine}"
            )
        kind = Kind.ALLOW if value else Kind.ASK
        entries.append(entry_for(origin, kind, match_line))
    return entries, notes


def _bad(path: str, node: Node, message: str) -> ImportInputError:
    return ImportInputError(message, path=path, line=node.line, column=node.column)


def entry_for(origin: Origin, kind: Kind, match_line: bool) -> Entry:
    key = origin.text
    m = _REGEX_KEY.match(key)
    if m is None:
        if not key:
            return Entry(Tool.VSCODE, origin, kind, problem="an empty key: VS Code ignores it")
        words, problem = prefix_words(key)
        notes: tuple[str, ...] = ()
        if "/" in key or "\\" in key:
            # VS Code's path form: either separator, and an optional leading `./`.
            body = "[/\\\\]".join(re.escape(part) for part in re.split(r"[/\\]+", key))
            matcher = f"^(?:\\.[/\\\\])?{body}\\b"
            notes = (
                "VS Code also matches this path with `./` in front or the other separator; "
                "Codex matches the word as written",
            )
        else:
            matcher = f"^{re.escape(key)}\\b"
        if match_line:
            problem = problem or (
                "`matchCommandLine` matches the whole command line, operators included; "
                "Codex rules match each command"
            )
        return Entry(
            Tool.VSCODE,
            origin,
            kind,
            prefixes=(words,) if words else (),
            matcher=matcher,
            notes=notes,
            problem=problem,
        )
    regex, flags = m.group(1), m.group(2)
    matcher = ("(?i)" if "i" in flags else "") + regex
    try:
        re.compile(matcher)
    except re.error as exc:
        return Entry(Tool.VSCODE, origin, kind, problem=f"bad regex: {exc}")

    def refuse(problem: str) -> Entry:
        return Entry(Tool.VSCODE, origin, kind, matcher=matcher, problem=problem)

    if match_line:
        return refuse(
            "`matchCommandLine` matches the whole command line, operators included; Codex "
            "rules match each command"
        )
    if "i" in flags and re.search(r"[A-Za-z]", regex):
        return refuse("the `i` flag ignores case; Codex rules match exact words")
    if not regex.startswith("^"):
        return refuse(
            "the regex is not anchored with `^`, so VS Code matches it anywhere in the command "
            "(`/rm/` matches `farm`); Codex rules match from the program on"
        )
    try:
        prefixes, tail = expand(regex[1:])
    except NotPlain as exc:
        return refuse(f"not a plain alternation of prefixes: {exc}")
    problems = [p for p in (prefix_words(" ".join(w))[1] for w in prefixes) if p]
    regex_notes: tuple[str, ...] = ()
    if tail == "end" and kind is Kind.ALLOW:
        problems.insert(
            0,
            "`$` makes VS Code approve only the exact command; a Codex prefix rule would also "
            "allow it followed by any arguments",
        )
    elif tail == "end":
        regex_notes = (
            "VS Code matches the exact command only; the Codex rule also covers longer ones",
        )
    elif tail == "open":
        regex_notes = (
            "the regex does not end at a word boundary, so VS Code also matches a longer last "
            f"word (`{' '.join(prefixes[0])}x`); Codex matches whole words",
        )
    return Entry(
        Tool.VSCODE,
        origin,
        kind,
        prefixes=tuple(prefixes),
        matcher=matcher,
        exact=tail == "end",
        notes=regex_notes,
        problem=problems[0] if problems else None,
    )
