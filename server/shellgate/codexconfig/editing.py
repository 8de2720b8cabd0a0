"""requirements.toml in an editor: the rule at a position, what it does, and the keys and values
that fit where the cursor is. The language server adapts these to LSP; the parser
(`requirements.py`) stays the one judge of the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from shellgate.codexconfig import SYSTEM_FOLDER
from shellgate.codexconfig.requirements import (
    APPROVAL_POLICIES,
    KNOWN_KEYS,
    REQUIREMENTS_FILE,
    SANDBOX_MODES,
    ManagedRule,
    RequirementsError,
    parse_requirements,
)
from shellgate.codexconfig.tomlpos import Path as KeyPath
from shellgate.codexconfig.tomlpos import positions

SYSTEM_REQUIREMENTS = f"{SYSTEM_FOLDER}/{REQUIREMENTS_FILE}"

# What each key does, for completion and hover. Keys ShellGate enforces come first; the rest of
# Codex's keys are accepted and left to Codex.
TOP_LEVEL_DOCS = {
    "rules": "`[rules] prefix_rules`: the admin's command rules (prompt, prompt-user or "
    "forbidden), merged after every rules file; the strictest decision wins.",
    "allowed_approval_policies": "The approval policies a session may use; any other falls "
    "back to the first allowed one, with Codex's warning.",
    "allowed_sandbox_modes": "The sandbox modes a session may use (must include "
    "`read-only`); any other falls back, with Codex's warning.",
    "permissions": "`[permissions.filesystem] deny_read`: paths and globs no sandboxed "
    "command may read, in every sandbox mode.",
    "hooks": "`[hooks]`: managed hooks (`managed_dir`, `[[hooks.PreToolUse]]`) that run "
    "without a trust entry.",
}
RULE_DOCS = {
    "pattern": 'The command prefix: one `{ token = "…" }` or `{ any_of = ["…", …] }` per position.',
    "decision": "`prompt`, `prompt-user` or `forbidden` (`allow` is refused: requirements "
    "can only tighten).",
    "justification": "Why: shown to the agent and to the user (must not be blank).",
    "canonical_matching": "Accepted by Codex (boolean); no visible effect on matching.",
}
TOKEN_DOCS = {
    "token": "Exactly this word at this position.",
    "any_of": "Any one of these words at this position.",
}
DECISION_DOCS = {
    "forbidden": "Refused, whatever any rules file or the approval policy says.",
    "prompt": 'Asked every time: no "don\'t ask again", no amendment written against it.',
    "prompt-user": "Asked of the person (Codex's app-server refuses it when it cannot ask); "
    "ShellGate asks as for `prompt`.",
}
_CHOICES: dict[KeyPath, dict[str, str]] = {
    (): {
        **TOP_LEVEL_DOCS,
        **{
            k: "Accepted by Codex; ShellGate does not read it."
            for k in sorted(KNOWN_KEYS - TOP_LEVEL_DOCS.keys())
        },
    },
    ("rules",): {
        "prefix_rules": "The list of managed rules (inline tables or `[[rules.prefix_rules]]`)."
    },
    ("rules", "prefix_rules", "*"): RULE_DOCS,
    ("rules", "prefix_rules", "*", "pattern", "*"): TOKEN_DOCS,
    ("permissions",): {"filesystem": "`deny_read`: what sandboxed commands may not read."},
    ("permissions", "filesystem"): {
        "deny_read": "Absolute paths or globs (relative ones are taken from /etc/codex)."
    },
    ("hooks",): {
        "managed_dir": "The folder the managed hooks' commands live in.",
        "PreToolUse": "Hook groups run before each tool call.",
    },
    ("hooks", "PreToolUse", "*"): {
        "matcher": "Which tools (none: every tool).",
        "hooks": "The commands of this group.",
    },
    ("hooks", "PreToolUse", "*", "hooks", "*"): {
        "type": "`command`.",
        "command": "The command line to run.",
        "timeout": "Seconds (an integer).",
    },
}
_VALUES: dict[KeyPath, dict[str, str]] = {
    ("rules", "prefix_rules", "*", "decision"): DECISION_DOCS,
    ("rules", "prefix_rules", "*", "canonical_matching"): {"true": "", "false": ""},
    # `granular` needs its flags (a table), so it is not offered as a plain string
    ("allowed_approval_policies", "*"): {p: "" for p in APPROVAL_POLICIES if p != "granular"},
    ("allowed_sandbox_modes", "*"): {m: "" for m in SANDBOX_MODES},
}
HEADERS = ("rules", "[rules.prefix_rules]", "permissions.filesystem", "hooks", "[hooks.PreToolUse]")


def is_requirements(path: str) -> bool:
    """A file the editor treats as requirements.toml: any file of that name."""
    return path.rsplit("/", 1)[-1] == REQUIREMENTS_FILE


def _path_at(text: str, line: int, column: int) -> KeyPath | None:
    """The key or value written last before a 1-based position."""
    best: tuple[tuple[int, int], KeyPath] | None = None
    for path, pos in positions(text).items():
        if pos <= (line, column) and (best is None or pos >= best[0]):
            best = (pos, path)
    return None if best is None else best[1]


def rule_at(text: str, rules: Sequence[ManagedRule], line: int, column: int) -> ManagedRule | None:
    """The managed rule written at a 1-based position: the one whose keys come last before it."""
    path = _path_at(text, line, column)
    if path is None or len(path) < 3 or path[:2] != ("rules", "prefix_rules"):
        return None
    return next((r for r in rules if r.index == path[2]), None)


def hover_at(text: str, path: str, line: int, column: int) -> str | None:
    """Markdown for a position of a requirements.toml: the managed rule there, else the key's
    documentation. None when the file does not parse (its diagnostic says why) or nothing fits."""
    try:
        req = parse_requirements(text, path, base=Path(path).parent)
    except RequirementsError:
        return None
    rule = rule_at(text, req.rules, line, column)
    if rule is not None:
        return rule_markdown(rule, path)
    at = _path_at(text, line, column)
    while at:
        name = at[-1]
        if isinstance(name, str):
            doc = _CHOICES.get(_generic(at[:-1]), {}).get(name)
            return f"**{name}**: {doc}" if doc else None
        at = at[:-1]
    return None


def rule_markdown(rule: ManagedRule, path: str) -> str:
    pattern = " ".join(
        alts[0] if len(alts) == 1 else "[" + "|".join(alts) + "]" for alts in rule.pattern
    )
    head = f"**managed prefix_rule** `{pattern}` → **{rule.decision}**"
    facts = [
        f"- justification: {rule.justification}" if rule.justification else "- no justification",
        "- layer: requirements (the admin's tier): merged after every rules file (system, user, "
        "project); the strictest decision wins, so it outranks any user or project `allow`",
        "- matches any command that starts with these tokens (each `[a|b]` position: any one "
        "of them)",
    ]
    if rule.decision == "forbidden":
        facts.append("- refused under every approval policy; nothing the user writes loosens it")
    else:
        facts.append(
            '- asked every time: the prompt offers no "don\'t ask again", and no rule is ever '
            "appended against it"
        )
    if rule.decision == "prompt-user":
        facts.append(
            "- `prompt-user`: Codex's app-server refuses it when it cannot ask the person; "
            "ShellGate asks its person as for `prompt` (docs/managed.md)"
        )
    if rule.canonical_matching:
        facts.append("- canonical_matching = true (accepted by Codex; no visible effect)")
    if path != SYSTEM_REQUIREMENTS:
        facts.append(f"- Codex reads only {SYSTEM_REQUIREMENTS}: this file applies once there")
    return head + "\n\n" + "\n".join(facts)


@dataclass(frozen=True)
class Choice:
    label: str
    doc: str
    kind: str  # "key", "value" or "table"
    insert: str


_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.-]*)$")
_TABLE = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\]?\s*(#.*)?$")


def choices_at(before: str) -> list[Choice]:
    """What fits at the end of `before` (the document up to the cursor): keys of the table or
    inline table the cursor is in, values of the key before `=`, or table names in a header."""
    line = before.rsplit("\n", 1)[-1]
    header = _HEADER.match(line)
    if header is not None:
        double = header.group(1) == "[["
        names = [h.strip("[]") for h in HEADERS if h.startswith("[") == double]
        return [Choice(n, "", "table", n) for n in names]
    where, at_value, in_string = _context(before)
    if at_value:
        values = _VALUES.get(_generic(where), {})
        return [
            Choice(v, doc, "value", v if in_string or v in ("true", "false") else f'"{v}"')
            for v, doc in values.items()
        ]
    keys = _CHOICES.get(_generic(where), {})
    return [Choice(k, doc, "key", f"{k} = ") for k, doc in keys.items()]


def _generic(path: KeyPath) -> KeyPath:
    return tuple("*" if isinstance(k, int) else k for k in path)


def _context(before: str) -> tuple[KeyPath, bool, bool]:
    """(the path the cursor is in, at a value?, inside a string?) from a light scan: headers,
    keys, `=`, brackets, strings and comments. The path of an array's element ends in 0."""
    table: KeyPath = ()
    stack: list[tuple[str, KeyPath]] = []  # open brackets: "[" or "{", and the path each is
    key: list[str] = []
    at_value = False
    i, n = 0, len(before)
    while i < n:
        c = before[i]
        if i == 0 or before[i - 1] == "\n":
            end = before.find("\n", i)
            m = _TABLE.match(before[i:end]) if end >= 0 else None
            # A complete header line: the table the keys below belong to (a bare name there is
            # no value, so a bracket left open above was a typo: forget it).
            if m is not None and (not stack or m.group(2)[:1].isalpha()):
                parts = [p.strip().strip('"') for p in m.group(2).split(".")]
                table = (*parts, 0) if m.group(1) == "[[" else tuple(parts)
                stack, key, at_value, i = [], [], False, end
                continue
        if c == "#":
            end = before.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "\n":
            if not stack:
                key, at_value = [], False
            i += 1
            continue
        if c in "\"'":
            q = c * 3 if before.startswith(c * 3, i) else c
            end = before.find(q, i + len(q))
            newline = before.find("\n", i)
            if len(q) == 1 and newline >= 0 and (end < 0 or newline < end):
                end = newline - len(q)  # a one-line string left open: it ends with its line
            if end < 0:
                return (*_base(table, stack), *key), at_value, True
            if not at_value:
                key.append(before[i + len(q) : end])
            i = end + len(q)
            continue
        if c == "=":
            at_value = True
        elif c == "{":
            stack.append(("{", (*_base(table, stack), *key) if at_value else _base(table, stack)))
            key, at_value = [], False
        elif c == "[":
            if at_value:
                stack.append(("[", (*_base(table, stack), *key, 0)))
                key = []
        elif c in "]}":
            if stack:
                stack.pop()
            key, at_value = [], bool(stack) and stack[-1][0] == "["
        elif c == ",":
            if stack and stack[-1][0] == "[":
                at_value = True
            else:
                key, at_value = [], False
        elif not at_value and (c.isalnum() or c in "_-"):
            j = i
            while j < n and (before[j].isalnum() or before[j] in "_-"):
                j += 1
            if j == n:  # the word being typed: not a key yet
                break
            key.append(before[i:j])
            i = j
            continue
        i += 1
    if at_value and stack and stack[-1][0] == "[":
        return stack[-1][1], True, False
    return (*_base(table, stack), *key) if at_value else _base(table, stack), at_value, False


def _base(table: KeyPath, stack: list[tuple[str, KeyPath]]) -> KeyPath:
    return stack[-1][1] if stack else table
