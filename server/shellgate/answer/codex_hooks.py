"""Which command hooks Codex 0.169.0/0.171.0 runs for a shell command (spec
codex-hooks-chain.md §2, §5; bridges/codex-hooks/README.md §1; docs/answerers.md "observed"),
in Codex's declared order:

1. the admin's `[hooks]` in `/etc/codex/requirements.toml`: no trust needed (source `system`),
   declared under `managed_dir` when that is absolute (only the name changes: Codex reads no
   file there); a managed hook Codex cannot load stops it (`requirements.py`);
2. the system folder's `hooks.json` and `config.toml` `[[hooks.<Event>]]` (`/etc/codex`): also
   the admin's, no trust needed;
3. the user's `$CODEX_HOME/hooks.json` and `config.toml`;
4. each trusted project folder's `.codex/hooks.json` and `.codex/config.toml`, root first.

3 and 4 need `[hooks.state."<file>:<event_snake>:<group>:<handler>"] trusted_hash` in the
user's config.toml equal to the handler's hash (`codexconfig.hook_trust`; a project cannot
trust its own hooks) and not `enabled = false`; untrusted or modified hooks are skipped
silently, as Codex skips them; none at all under the admin's `allow_managed_hooks_only`.
Hooks given with `-c` are Codex's session flags: ShellGate's runs take none.

`async = true` hooks run detached; their answers are ignored, as Codex ignores them.
Declared order (managed first) decides which refusal the model reads when several refuse.
Matchers are regular expressions searched in the tool name `Bash`; none, `""` and `*` match
every tool.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from shellgate.answer.hook_sources import Declared, config_toml, hooks_json
from shellgate.codexconfig.hook_matcher import matcher_error
from shellgate.codexconfig.hook_trust import seconds, state_key, trust_hash
from shellgate.codexconfig.requirements import HOOK_EVENTS, Requirements
from shellgate.codexconfig.trust import ConfigError, project_trust, read_config, trusted_project

SHELLGATE_OWN = "shellgate hook codex"  # ShellGate's own Codex hook (`hook install codex`)
TOOL_NAME = "Bash"  # what Codex matches hooks against for its shell tool


@dataclass(frozen=True)
class CodexHook:
    event: str  # PreToolUse, PermissionRequest, PostToolUse
    matcher: str | None
    command: str  # run by /bin/sh -c in the session's cwd
    timeout: int  # seconds
    source: str  # "system" (the admin's), "user" or "project"
    path: str  # the declaring file (managed_dir for requirements.toml's when it is absolute)
    group: int
    handler: int
    is_async: bool = False  # runs detached; its answer is ignored

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
        """The hooks whose answer counts (async ones excluded: see `detached`)."""
        return tuple(h for h in self.hooks
                     if h.event == event and not h.is_async and h.matches(tool))  # fmt: skip

    def detached(self, event: str, tool: str = TOOL_NAME) -> tuple[CodexHook, ...]:
        """`async = true` hooks: started, never waited for, their answer ignored (Codex:
        "async hooks cannot affect the operation that launched them")."""
        return tuple(h for h in self.hooks
                     if h.event == event and h.is_async and h.matches(tool))  # fmt: skip

    def __bool__(self) -> bool:
        return bool(self.hooks)


def managed_only(requirements: Requirements | None, system_dir: Path | None = None) -> HookSet:
    """The admin's hooks alone: what applies to another agent's commands through ShellGate's
    hook (the user's Codex hooks are the user's Codex's business)."""
    managed = managed_hooks(requirements)
    runs, skipped = ((), ()) if system_dir is None else _layer(system_dir, "system", {})
    return _without_own(HookSet((*managed, *runs), tuple(skipped)))


def managed_hooks(requirements: Requirements | None) -> tuple[CodexHook, ...]:
    if requirements is None or requirements.hooks is None:
        return ()
    managed_dir = requirements.hooks.managed_dir
    path = managed_dir if managed_dir and os.path.isabs(managed_dir) else requirements.path
    out: list[CodexHook] = []
    for event in HOOK_EVENTS:
        for g, group in enumerate(requirements.hooks.groups(event)):
            for h, cmd in enumerate(group.hooks):
                out.append(CodexHook(event, group.matcher, cmd.command,
                                     seconds(cmd.timeout), "system", path, g, h,
                                     cmd.is_async))  # fmt: skip
    return tuple(out)


def project_dirs(cwd: Path, codex_home: Path, project: Path | None = None) -> tuple[Path, ...]:
    """The `.codex` folders of the trusted project folders of a session in `cwd`, root first
    (the folders whose rules Codex loads; an untrusted project's hooks are not read).
    `project` (`--project DIR`): the caller trusts that folder instead, as for its rules; its
    hooks still need their trust entries."""
    if project is not None:
        trust = trusted_project(project, cwd=cwd, codex_home=codex_home)
    else:
        trust = project_trust(cwd, codex_home=codex_home)
    return tuple(f.folder / ".codex" for f in trust.folders if f.trusted)


def discover(
    codex_home: Path, requirements: Requirements | None, *, system_dir: Path | None = None,
    projects: tuple[Path, ...] = (),
) -> HookSet:  # fmt: skip
    """The hooks Codex runs for a session: the admin's (requirements.toml, then the system
    folder's files), the user's trusted ones, then each trusted project's (`projects`: their
    `.codex` folders, `project_dirs`)."""
    states = _states(codex_home)
    system = _layer(system_dir, "system", {}) if system_dir is not None else ((), ())
    admins_only = requirements is not None and requirements.allow_managed_hooks_only
    runs: list[CodexHook] = []
    skipped: list[Skipped] = list(system[1])
    seen: set[Path] = set()
    for folder, source in [(codex_home, "user"), *((p, "project") for p in projects)]:
        real = Path(os.path.realpath(folder))
        if real in seen:  # one folder's hooks.json is read once (Codex's visited folders)
            continue
        seen.add(real)
        try:
            found, skips = _layer(folder, source, states)
        except ConfigError:
            if admins_only:  # Codex does not read them: their errors stop nothing
                continue
            raise
        runs += found
        skipped += skips
    if admins_only:
        skipped += [Skipped(h, "allow_managed_hooks_only") for h in runs]
        runs = []
    managed = (*managed_hooks(requirements), *system[0])
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


def _states(codex_home: Path) -> Mapping[str, object]:
    """`[hooks.state]` of the user's config.toml: the only trust Codex reads (a project's own
    config.toml cannot trust its hooks; observed)."""
    return _table(_table(read_config(codex_home / "config.toml").get("hooks")).get("state"))


def _layer(folder: Path, source: str, states: Mapping[str, object]
           ) -> tuple[tuple[CodexHook, ...], tuple[Skipped, ...]]:  # fmt: skip
    """One config folder's hooks: its hooks.json, then its config.toml. `system` hooks need
    no trust; others need their trusted hash in `states`."""
    declared = [*hooks_json(folder), *config_toml(folder / "config.toml")]
    runs: list[CodexHook] = []
    skipped: list[Skipped] = []
    for d in declared:
        hook = CodexHook(d.event, d.matcher, d.command, seconds(d.timeout),
                         source, str(d.path), d.group, d.handler, d.is_async)  # fmt: skip
        why = d.skip or _untrusted(d, states, source)
        if why is None and (bad := matcher_error(d.matcher)):
            raise ConfigError(f"invalid matcher {json.dumps(d.matcher)}: {bad}",
                              path=str(d.path), line=d.matcher_at[0], column=d.matcher_at[1],
                              code="config-type")  # fmt: skip
        if why is None and d.kind != "command":
            raise ConfigError(f"{json.dumps(d.kind)} hooks are not run by ShellGate: a hook "
                              "that would run is never skipped", path=str(d.path),
                              line=d.at[0], column=d.at[1], code="config-type")  # fmt: skip
        if why is None:
            runs.append(hook)
        else:
            skipped.append(Skipped(hook, why))
    return tuple(runs), tuple(skipped)


def _untrusted(d: Declared, states: Mapping[str, object], source: str) -> str | None:
    if source == "system":
        return None
    entry = _table(states.get(state_key(d.path, d.event, d.group, d.handler)))
    if entry.get("enabled") is False:
        return "disabled (enabled = false)"
    if entry.get("trusted_hash") == trust_hash(d.event, d.matcher, d.command, d.timeout,
                                               d.is_async, d.status_message):  # fmt: skip
        return None
    return "untrusted" if "trusted_hash" not in entry else "modified since trusted"
