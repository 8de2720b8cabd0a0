"""Which command hooks Codex 0.169.0/0.171.0 runs for a shell command (spec
codex-hooks-chain.md §2, §5; bridges/codex-hooks/README.md §1):

- the admin's `[hooks]` in `/etc/codex/requirements.toml`: no trust needed (source `system`);
- the user's `$CODEX_HOME/config.toml` `[[hooks.<Event>]]` and `$CODEX_HOME/hooks.json`, each
  handler only with `[hooks.state."<file>:<event_snake>:<group>:<handler>"] trusted_hash` equal
  to its hash (`codexconfig.hook_trust`); untrusted or modified hooks are skipped silently, as Codex
  skips them; none at all under the admin's `allow_managed_hooks_only = true`.

Declared order (managed first) decides which refusal the model reads when several refuse.
Matchers are regular expressions searched in the tool name `Bash`; none, `""` and `*` match
every tool.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from shellgate.codexconfig.hook_trust import state_key, trust_hash
from shellgate.codexconfig.requirements import HOOK_EVENTS, Requirements
from shellgate.codexconfig.trust import read_config

SHELLGATE_OWN = "shellgate hook codex"  # ShellGate's own Codex hook (`hook install codex`)
TOOL_NAME = "Bash"  # what Codex matches hooks against for its shell tool
DEFAULT_TIMEOUT = 600  # seconds, when a handler gives none (hooks/list `timeoutSec`)


@dataclass(frozen=True)
class CodexHook:
    event: str  # PreToolUse, PermissionRequest, PostToolUse
    matcher: str | None
    command: str  # run by /bin/sh -c in the session's cwd
    timeout: int  # seconds
    source: str  # "system" (requirements.toml) or "user"
    path: str  # the declaring file
    group: int
    handler: int

    @property
    def name(self) -> str:
        return f"{self.path}:{self.event}:{self.group}:{self.handler}"

    def matches(self, tool: str = TOOL_NAME) -> bool:
        if self.matcher is None or self.matcher in ("", "*"):
            return True
        try:
            return re.search(self.matcher, tool) is not None
        except re.error:
            return False  # Codex cannot compile it either: the hook never fires


@dataclass(frozen=True)
class Skipped:
    """A user hook Codex does not run: untrusted, modified, or managed-only."""

    hook: CodexHook
    why: str


@dataclass(frozen=True)
class HookSet:
    hooks: tuple[CodexHook, ...]  # the ones Codex runs, in declared order
    skipped: tuple[Skipped, ...] = ()

    def for_event(self, event: str, tool: str = TOOL_NAME) -> tuple[CodexHook, ...]:
        return tuple(h for h in self.hooks if h.event == event and h.matches(tool))

    def __bool__(self) -> bool:
        return bool(self.hooks)


def managed_only(requirements: Requirements | None) -> HookSet:
    """The admin's hooks alone: what applies to another agent's commands through ShellGate's
    hook (the user's Codex hooks are the user's Codex's business)."""
    return _without_own(HookSet(managed_hooks(requirements)))


def managed_hooks(requirements: Requirements | None) -> tuple[CodexHook, ...]:
    if requirements is None or requirements.hooks is None:
        return ()
    out: list[CodexHook] = []
    for event in HOOK_EVENTS:
        for g, group in enumerate(requirements.hooks.groups(event)):
            for h, cmd in enumerate(group.hooks):
                out.append(CodexHook(event, group.matcher, cmd.command,
                                     max(1, cmd.timeout or DEFAULT_TIMEOUT), "system",
                                     requirements.path, g, h))  # fmt: skip
    return tuple(out)


def user_hooks(codex_home: Path) -> tuple[list[CodexHook], list[Skipped]]:
    """The user's hooks with their trust. Raises ConfigError for a config.toml Codex refuses;
    a hooks.json that is not JSON declares nothing (Codex skips it)."""
    config_path = codex_home / "config.toml"
    config = read_config(config_path)
    state = _table(_table(config.get("hooks")).get("state"))
    declared = _declared(config_path, _table(config.get("hooks")))
    json_path = codex_home / "hooks.json"
    try:
        data = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    declared += _declared(json_path, _table(_table(data).get("hooks")))
    runs: list[CodexHook] = []
    skipped: list[Skipped] = []
    for hook, given_timeout in declared:
        key = state_key(Path(hook.path), hook.event, hook.group, hook.handler)
        entry = _table(state.get(key))
        want = trust_hash(hook.event, hook.matcher, hook.command, given_timeout)
        if entry.get("trusted_hash") == want:
            runs.append(hook)
        else:
            why = "untrusted" if "trusted_hash" not in entry else "modified since trusted"
            skipped.append(Skipped(hook, why))
    return runs, skipped


def discover(codex_home: Path, requirements: Requirements | None) -> HookSet:
    """The hooks Codex runs for a session: the admin's, then the user's trusted ones."""
    managed = managed_hooks(requirements)
    runs, skipped = user_hooks(codex_home)
    if requirements is not None and requirements.allow_managed_hooks_only:
        skipped += [Skipped(h, "allow_managed_hooks_only") for h in runs]
        runs = []
    return _without_own(HookSet((*managed, *runs), tuple(skipped)))


def _without_own(found: HookSet) -> HookSet:
    """ShellGate's own Codex hook is for Codex: in ShellGate's runs the chain it would run is
    this one, so it is not run again (it would judge the command twice, and put the question
    to the editor instead of this run's person)."""
    own = [h for h in found.hooks if SHELLGATE_OWN in h.command]
    if not own:
        return found
    return HookSet(tuple(h for h in found.hooks if h not in own),
                   (*found.skipped, *(Skipped(h, "ShellGate's own Codex hook") for h in own)))


def _table(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def _declared(path: Path, table: Mapping[str, object]) -> list[tuple[CodexHook, int | None]]:
    out: list[tuple[CodexHook, int | None]] = []
    for event in HOOK_EVENTS:
        groups = table.get(event)
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            group = _table(group)
            matcher = group.get("matcher")
            handlers = group.get("hooks")
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                handler = _table(handler)
                command, timeout = handler.get("command"), handler.get("timeout")
                if handler.get("type", "command") != "command" or not isinstance(command, str):
                    continue
                if handler.get("async") is True:
                    continue  # not observed with Codex; not run (see docs/answerers.md)
                given = timeout if isinstance(timeout, int) and not isinstance(timeout, bool) \
                    else None
                hook = CodexHook(event, matcher if isinstance(matcher, str) else None, command,
                                 max(1, given or DEFAULT_TIMEOUT), "user", str(path), g, h)
                out.append((hook, given))
    return out
