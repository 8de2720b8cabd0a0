"""Gemini CLI policy TOML: `[[rule]]`s for `run_shell_command`, checked as Gemini's
`PolicyRuleSchema` checks them (0.61.0), each with its position (tomllib gives none, so the
`[[rule]]` headers and keys are found in the text)."""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from shellgate.importers.errors import ImportInputError
from shellgate.importers.gemini_match import SHELL_TOOLS, prefix_entry
from shellgate.importers.model import Entry, Ignored, Kind, Origin, Tool
from shellgate.importers.regex_prefixes import NotPlain, expand
from shellgate.importers.source import position, read_source
from shellgate.importers.words import prefix_words

_DECISIONS = {"allow": Kind.ALLOW, "deny": Kind.DENY, "ask_user": Kind.ASK}
# PolicyRuleSchema in Gemini CLI 0.61.0's toml-loader.
_RULE_KEYS = frozenset(
    {
        "toolName",
        "subagent",
        "mcpName",
        "argsPattern",
        "commandPrefix",
        "commandRegex",
        "decision",
        "priority",
        "modes",
        "interactive",
        "toolAnnotations",
        "allowRedirection",
        "allow_redirection",
        "denyMessage",
        "deny_message",
    }
)
_TOP_KEYS = frozenset({"rule", "safety_checker"})
_MODES = frozenset({"default", "autoEdit", "plan", "yolo"})
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")
_RULE_HEADER = re.compile(r"^\s*\[\[\s*rule\s*\]\]", re.MULTILINE)


def read_policy(path: Path, tier: int) -> tuple[list[Entry], list[Ignored]]:
    text = read_source(path)
    name = str(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_POSITION.search(str(exc))
        line, column = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        message = _TOML_POSITION.sub("", str(exc)).strip()
        raise ImportInputError(
            f"invalid TOML: {message}", path=name, line=line, column=column
        ) from None
    for key in data:
        if key not in _TOP_KEYS:
            line, column = _key_position(text, key, 0)
            raise ImportInputError(
                f"unknown top-level key `{key}` (a Gemini policy file holds [[rule]] and "
                "[[safety_checker]])",
                path=name,
                line=line,
                column=column,
            )
    rules = data.get("rule", [])
    if not isinstance(rules, list):
        raise ImportInputError("`rule` must be an array of tables ([[rule]])", path=name, line=1)
    headers = [m.start() for m in _RULE_HEADER.finditer(text)]
    entries: list[Entry] = []
    ignored: list[Ignored] = []
    for index, rule in enumerate(rules):
        start = headers[index] if index < len(headers) else 0
        got = _policy_rule(name, text, start, index, rule, tier)
        for item in got:
            (ignored if isinstance(item, Ignored) else entries).append(item)  # type: ignore[arg-type]
    return entries, ignored


def _key_position(text: str, key: str, start: int) -> tuple[int, int]:
    m = re.compile(rf"^\s*({re.escape(key)}|\"{re.escape(key)}\")\s*=", re.MULTILINE).search(
        text, start
    )
    return position(text, m.start(1) if m else start)


def _offset(text: str, line: int, column: int) -> int:
    offset = 0
    for _ in range(line - 1):
        offset = text.index("\n", offset) + 1
    return offset + column - 1


def _string_position(text: str, item: str, cursor: int) -> tuple[int, int, int]:
    """Where the TOML string holding `item` starts, at or after `cursor` (else the cursor)."""
    best = -1
    for quoted in (json.dumps(item, ensure_ascii=False), f"'{item}'"):
        found = text.find(quoted, cursor)
        if found >= 0 and (best < 0 or found < best):
            best = found
    offset = best if best >= 0 else cursor
    line, column = position(text, offset)
    return (offset + 1 if best >= 0 else cursor), line, column


def _policy_rule(
    name: str, text: str, start: int, index: int, rule: object, tier: int
) -> list[Entry | Ignored]:
    label = f"rule #{index + 1}"

    def bad(message: str, key: str | None = None) -> ImportInputError:
        # At the key when there is one, else at the rule's [[rule]] header.
        line, column = _key_position(text, key, start) if key else position(text, start)
        return ImportInputError(f"{label}: {message}", path=name, line=line, column=column)

    if not isinstance(rule, dict):
        raise bad("a rule must be a table")
    for key in rule:
        if key not in _RULE_KEYS:
            close = _did_you_mean(key, _RULE_KEYS)
            raise bad(f"unknown key `{key}`{close}", key)
    if "toolName" not in rule and "mcpName" not in rule:
        raise bad("`toolName` is required")
    decision = rule.get("decision")
    if decision not in _DECISIONS:
        raise bad(
            f'`decision` must be "allow", "deny" or "ask_user" (got {decision!r})',
            "decision" if "decision" in rule else None,
        )
    priority = rule.get("priority")
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 999:
        raise bad(
            f"`priority` must be an integer from 0 to 999 (got {priority!r})",
            "priority" if "priority" in rule else None,
        )
    kind = _DECISIONS[decision]
    final = tier + priority / 1000
    tool = rule.get("toolName")
    header_line, header_col = position(text, start)
    written = _rule_text(rule)
    origin = Origin(name, header_line, header_col, f"rule[{index + 1}]", written)

    def refuse(problem: str) -> list[Entry | Ignored]:
        return [Entry(Tool.GEMINI, origin, kind, priority=final, problem=problem)]

    if isinstance(tool, list):
        if any(t in SHELL_TOOLS for t in tool) and rule.get("mcpName") is None:
            return refuse("a list of tools with the shell among them speaks of every command")
        return [Ignored(origin, "a rule for a list of other tools, not the shell tool")]
    if rule.get("mcpName") is not None or (tool not in SHELL_TOOLS and tool != "*"):
        return [Ignored(origin, f"a rule for `{tool or rule.get('mcpName')}`, not the shell tool")]
    if tool == "*":
        return refuse('`toolName = "*"` speaks of every tool; Codex rules speak of commands')
    modes = rule.get("modes") or []
    if not isinstance(modes, list) or any(m not in _MODES for m in modes):
        raise bad(f"`modes` must be a list of {', '.join(sorted(_MODES))}", "modes")
    notes: list[str] = []
    if modes and "default" not in modes:
        return refuse(
            f"it applies only in the {', '.join(modes)} mode(s); Codex rules have no modes"
        )
    if modes and set(modes) != _MODES:
        notes.append(f"Gemini applies it only in the {', '.join(modes)} modes; Codex always")
    if rule.get("interactive") is False:
        return refuse("it applies only to headless runs; Codex rules apply to every session")
    if rule.get("subagent") is not None:
        return refuse("it applies only to one subagent's calls; Codex rules have no subagents")
    if rule.get("toolAnnotations") is not None:
        return refuse("it matches tool annotations, which Codex rules cannot see")
    if rule.get("argsPattern") is not None:
        return refuse(
            "`argsPattern` is a regex over the arguments' JSON; only `commandPrefix` and plain "
            "`commandRegex` carry over"
        )
    if kind is Kind.ALLOW and (rule.get("allowRedirection") or rule.get("allow_redirection")):
        notes.append(
            "`allowRedirection`: Gemini otherwise asks when the command redirects; Codex "
            "decides redirections by the command's own words"
        )
    prefix = rule.get("commandPrefix")
    regex = rule.get("commandRegex")
    if prefix is not None:
        prefixes = prefix if isinstance(prefix, list) else [prefix]
        if not prefixes or not all(isinstance(p, str) for p in prefixes):
            raise bad("`commandPrefix` must be a string or a list of strings", "commandPrefix")
        out: list[Entry | Ignored] = []
        key_line, key_col = _key_position(text, "commandPrefix", start)
        cursor = _offset(text, key_line, key_col)
        for item in prefixes:
            cursor, item_line, item_col = _string_position(text, item, cursor)
            item_origin = Origin(
                name, item_line, item_col, f"rule[{index + 1}].commandPrefix", item
            )
            out.append(prefix_entry(item_origin, kind, final, item, tuple(notes)))
        return out
    if regex is not None:
        if not isinstance(regex, str):
            raise bad("`commandRegex` must be a string", "commandRegex")
        regex_line, regex_col = _key_position(text, "commandRegex", start)
        regex_origin = Origin(name, regex_line, regex_col, f"rule[{index + 1}].commandRegex", regex)
        return [_regex_entry(regex_origin, kind, final, regex, tuple(notes))]
    return refuse(
        "it speaks of every shell command (no `commandPrefix` or `commandRegex`); Codex rules "
        "need at least the program"
    )


def _regex_entry(
    origin: Origin, kind: Kind, final: float, regex: str, notes: tuple[str, ...]
) -> Entry:
    matcher = '"command":"' + regex
    try:
        re.compile(matcher)
    except re.error as exc:
        return Entry(Tool.GEMINI, origin, kind, priority=final, problem=f"bad regex: {exc}")
    if re.search(r"(?<!\\)\$", regex):
        return Entry(
            Tool.GEMINI,
            origin,
            kind,
            matcher=matcher,
            matcher_subject="json",
            priority=final,
            problem="`$` ends the arguments' JSON (`...\"}`), not the command, so Gemini never "
            "matches this rule (its policy-engine docs); fix the regex first",
        )
    try:
        prefixes, tail = expand(regex)
    except NotPlain as exc:
        return Entry(
            Tool.GEMINI,
            origin,
            kind,
            matcher=matcher,
            matcher_subject="json",
            priority=final,
            problem=f"not a plain alternation of prefixes: {exc}",
        )
    problems = [p for p in (prefix_words(" ".join(w))[1] for w in prefixes) if p]
    more = list(notes)
    if tail == "open":
        more.append(
            "the regex does not end at a word boundary, so Gemini also matches a longer last "
            f"word (`{' '.join(prefixes[0])}x`); Codex matches whole words"
        )
    return Entry(
        Tool.GEMINI,
        origin,
        kind,
        prefixes=tuple(prefixes),
        matcher=matcher,
        matcher_subject="json",
        priority=final,
        notes=tuple(more),
        problem=problems[0] if problems else None,
    )


def _rule_text(rule: Mapping[str, object]) -> str:
    keys = ("toolName", "commandPrefix", "commandRegex", "argsPattern", "decision", "priority")
    return ", ".join(f"{k} = {json.dumps(rule[k])}" for k in keys if k in rule)


def _did_you_mean(key: str, known: frozenset[str]) -> str:
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""
