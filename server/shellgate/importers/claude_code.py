"""Claude Code: `permissions.allow`, `ask` and `deny` in settings.json.

What is translated (Claude Code's documented matching; verified where docs/import.md says):
`Bash(cmd:*)` and `Bash(cmd *)` match `cmd` alone or followed by a space and anything (a word
boundary); `Bash(cmd)` matches exactly `cmd`. Several matching entries: deny, then ask, then
allow, whatever their order or specificity, which is Codex's strictest-wins. Before matching,
Claude Code strips a fixed list of wrappers and leading `VAR=value` words; Codex does not
(the round trip shows those commands).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from shellgate.importers.errors import ImportInputError
from shellgate.importers.jsonpos import Node, parse_json
from shellgate.importers.model import Combine, Entry, Ignored, Kind, Origin, Source, Tool
from shellgate.importers.source import read_source
from shellgate.importers.words import prefix_words

_LISTS = {"allow": Kind.ALLOW, "ask": Kind.ASK, "deny": Kind.DENY}
# Keys of `permissions` that hold no command rules (Claude Code's settings schema).
_OTHER_KEYS = frozenset(
    {"defaultMode", "additionalDirectories", "disableBypassPermissionsMode", "disableAutoMode"}
)
_ENTRY = re.compile(r"^([A-Za-z0-9_\-]+)(?:\((.*)\))?$", re.DOTALL)
# The wrappers Claude Code's docs say it strips before matching.
_WRAPPERS = frozenset({"time", "nohup", "command", "builtin", "noglob"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
EVERY = r"^.*$"  # a bare `Bash` in deny or ask: every command


def user_dir(*, home: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    config = env.get("CLAUDE_CONFIG_DIR")
    return Path(config) if config else (home or Path.home()) / ".claude"


def default_files(
    cwd: Path, *, home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[Path]:
    """User, project and local settings, in Claude Code's order (lowest precedence first)."""
    user = user_dir(home=home, env=env)
    candidates = [
        user / "settings.json",
        cwd / ".claude" / "settings.json",
        cwd / ".claude" / "settings.local.json",
        Path("/etc/claude-code/managed-settings.json"),  # enterprise policy (Linux)
    ]
    return [p for p in candidates if p.is_file()]


def read(paths: Sequence[Path]) -> Source:
    entries: list[Entry] = []
    ignored: list[Ignored] = []
    notes: list[str] = []
    user = user_dir().resolve()
    for path in paths:
        file_entries, file_ignored = read_file(path)
        entries += file_entries
        ignored += file_ignored
        project = path.resolve().parent
        allows = any(e.kind is Kind.ALLOW for e in file_entries)
        if project.name == ".claude" and project != user and allows:
            notes.append(
                f"{path}: Claude Code ignores a project's allow entries until the workspace "
                "is trusted (its deny entries apply at once); Codex reads project rules only "
                "in a trusted project too"
            )
    return Source(
        Tool.CLAUDE_CODE,
        tuple(str(p) for p in paths),
        tuple(overridden(entries)),
        tuple(ignored),
        default=Kind.ASK,
        combine=Combine.STRICTEST,
        notes=tuple(notes),
    )


def overridden(entries: list[Entry]) -> list[Entry]:
    """A bare `Bash` in deny or ask governs every Bash command, in every settings file (the
    strictest entry wins): an entry less strict than it never applies, so it is refused (never
    written as a rule), naming the entry that overrides it."""
    bare = [e for e in entries if e.matcher == EVERY]
    if not bare:
        return entries
    strictest = max(bare, key=lambda e: e.kind.rank)
    does = "denies" if strictest.kind is Kind.DENY else "asks about"
    out = []
    for e in entries:
        if e.kind.rank < strictest.kind.rank:
            e = replace(e, problem=f"never applies: `{strictest.origin.text}` in "
                        f"{strictest.origin.key} ({strictest.origin.where()}) {does} every "
                        "Bash command")  # fmt: skip
        out.append(e)
    return out


def read_file(path: Path) -> tuple[list[Entry], list[Ignored]]:
    text = read_source(path)
    name = str(path)
    root = parse_json(text, name)  # Claude Code reads strict JSON, and drops an invalid file
    if not isinstance(root.value, dict):
        raise _bad(name, root, "the settings file must hold a JSON object")
    permissions = root.value.get("permissions")
    if permissions is None:
        return [], []
    if not isinstance(permissions.value, dict):
        raise _bad(name, permissions, "`permissions` must be an object")
    entries: list[Entry] = []
    ignored: list[Ignored] = []
    for key, node in permissions.value.items():
        if key in _OTHER_KEYS:
            continue
        kind = _LISTS.get(key)
        if kind is None:
            line, column = permissions.key_position(key)
            raise _bad(
                name,
                Node(None, line, column),
                f"unknown key `permissions.{key}` (Claude Code knows allow, ask, deny, "
                + ", ".join(sorted(_OTHER_KEYS))
                + ")",
            )
        if not isinstance(node.value, list):
            raise _bad(name, node, f"`permissions.{key}` must be an array of strings")
        for item in node.value:
            if not isinstance(item.value, str):
                raise _bad(name, item, f"`permissions.{key}` holds a non-string entry")
            origin = Origin(name, item.line, item.column, f"permissions.{key}", item.value)
            entry = translate_entry(origin, kind)
            if isinstance(entry, Ignored):
                ignored.append(entry)
            else:
                entries.append(entry)
    return entries, ignored


def _bad(path: str, node: Node, message: str) -> ImportInputError:
    return ImportInputError(message, path=path, line=node.line, column=node.column)


def translate_entry(origin: Origin, kind: Kind) -> Entry | Ignored:
    m = _ENTRY.match(origin.text.strip())
    if m is None:
        return Entry(
            Tool.CLAUDE_CODE,
            origin,
            kind,
            problem="not a Claude Code permission rule (`Tool` or `Tool(specifier)`)",
        )
    tool, spec = m.group(1), m.group(2)
    if tool != "Bash":
        return Ignored(origin, f"a `{tool}` rule, not a shell command rule")
    if spec is None or spec.strip() in ("", "*", ":*"):
        if kind is Kind.ALLOW:
            problem = "bare `Bash` allows every command; Codex rules need at least the program"
            return Entry(Tool.CLAUDE_CODE, origin, kind, problem=problem)
        does = "removes the tool" if kind is Kind.DENY else "asks about every command"
        problem = f"bare `Bash` {does}; Codex rules cannot speak of every command at once"
        # It governs every command in the round trip (the source's side), and overrides
        # every less strict entry (`overridden`).
        return Entry(Tool.CLAUDE_CODE, origin, kind, matcher=EVERY, problem=problem)
    exact = True
    body = spec
    if spec.endswith(":*") or spec.endswith(" *"):
        body, exact = spec[:-2], False
    if ":*" in body:
        return Entry(
            Tool.CLAUDE_CODE,
            origin,
            kind,
            problem="`:*` anywhere but at the end: Claude Code ignores this rule "
            "(anthropics/claude-code#84969)",
        )
    if "*" in body:
        where = "glued to a word" if body.rstrip().endswith("*") else "in the middle"
        return Entry(
            Tool.CLAUDE_CODE,
            origin,
            kind,
            problem=f"a `*` {where}: Codex rules match whole words in order, with no wildcards",
        )
    words, bad_words = prefix_words(body)
    if bad_words is not None:
        return Entry(Tool.CLAUDE_CODE, origin, kind, problem=bad_words)
    written = body.strip()
    literal = re.escape(written)
    matcher = f"^{literal}$" if exact else f"^{literal}(?: .*)?$"
    notes: tuple[str, ...] = ()
    if exact and kind is Kind.ALLOW:
        return Entry(
            Tool.CLAUDE_CODE,
            origin,
            kind,
            prefixes=(words,),
            matcher=matcher,
            exact=True,
            written=written,
            problem=f"`Bash({body})` allows exactly `{body}`; a Codex prefix rule would also "
            f"allow `{body}` followed by any arguments (write `Bash({body}:*)` if that is meant)",
        )
    if exact:
        notes = (
            f"Claude Code matches exactly `{body}`; the Codex rule also covers `{body}` with more "
            "arguments (stricter)",
        )
    return Entry(Tool.CLAUDE_CODE, origin, kind, (words,), matcher, exact=exact, notes=notes,
                 written=written)  # fmt: skip


def strip_wrappers(command: str) -> str:
    """The command as Claude Code matches it: its documented wrappers and `VAR=` removed."""
    words = command.split(" ")
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word) or word in _WRAPPERS:
            i += 1
        elif word == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in ("-s", "-k", "--signal", "--kill-after") else 1
            i += 1  # the duration
        elif word == "nice" or word == "stdbuf":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in ("-n", "-i", "-o", "-e") else 1
        elif word == "xargs" and i + 1 < len(words) and not words[i + 1].startswith("-"):
            i += 1
        else:
            break
    return " ".join(words[i:])
