"""The admin's `[hooks]` in requirements.toml, typed: the groups of each event, their commands,
`managed_dir`. A managed hook Codex cannot load stops Codex (`failed to load required managed
hooks: …`, observed with 0.169.0 and 0.171.0): so it stops ShellGate, with its position.
"""

from __future__ import annotations

from dataclasses import dataclass

from shellgate.codexconfig.hook_matcher import matcher_error
from shellgate.codexconfig.serde_reader import (
    Reader,
    RequirementsError,
    as_table,
    debug,
    invalid,
    string,
)
from shellgate.codexconfig.tomlpos import Path as KeyPath


@dataclass(frozen=True)
class HookCommand:
    command: str
    timeout: int | None = None
    is_async: bool = False  # `async = true`: run detached, its answer ignored (as Codex does)


@dataclass(frozen=True)
class HookGroup:
    """One `[[hooks.PreToolUse]]` group: its matcher (None: every tool) and its commands."""

    matcher: str | None
    hooks: tuple[HookCommand, ...]


HOOK_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse")


@dataclass(frozen=True)
class ManagedHooks:
    managed_dir: str | None
    pre_tool_use: tuple[HookGroup, ...]
    permission_request: tuple[HookGroup, ...] = ()
    post_tool_use: tuple[HookGroup, ...] = ()

    def groups(self, event: str) -> tuple[HookGroup, ...]:
        """The groups of one of HOOK_EVENTS, in the file's order."""
        return {"PreToolUse": self.pre_tool_use, "PermissionRequest": self.permission_request,
                "PostToolUse": self.post_tool_use}[event]  # fmt: skip


def parse_hooks(r: Reader, value: object) -> ManagedHooks:
    """`[hooks]`: serde reports every fault inside as `in hooks` (a flattened map)."""
    table = as_table(r, value, ("hooks",), "ManagedHooksRequirementsToml")
    managed_dir = table.get("managed_dir")
    if managed_dir is not None:
        string(r, managed_dir, ("hooks", "managed_dir"), hooks=True)
    events = [_hook_groups(r, table.get(event, []), event) for event in HOOK_EVENTS]
    return ManagedHooks(managed_dir if isinstance(managed_dir, str) else None, *events)


def _hook_groups(r: Reader, raw_groups: object, event: str) -> tuple[HookGroup, ...]:
    """The groups of one event. A managed hook Codex cannot load (a matcher that is not a
    regular expression, an empty command, a `prompt` or `agent` hook) stops Codex: every
    session fails with `failed to load required managed hooks: …` (observed, both versions)."""
    groups: list[HookGroup] = []
    if not isinstance(raw_groups, list):
        raise r.type_error(invalid(raw_groups, "a sequence"), ("hooks",))
    for i, group in enumerate(raw_groups):
        gk: KeyPath = ("hooks", event, i)
        if not isinstance(group, dict):
            raise r.type_error(invalid(group, "a map"), ("hooks",))
        matcher = group.get("matcher")
        if matcher is not None:
            string(r, matcher, (*gk, "matcher"), hooks=True)
        commands: list[HookCommand] = []
        raw_hooks = group.get("hooks", [])
        if not isinstance(raw_hooks, list):
            raise r.type_error(invalid(raw_hooks, "a sequence"), ("hooks",))
        bad = matcher_error(matcher if isinstance(matcher, str) else None)
        if bad and raw_hooks:  # a group without hooks: only a warning in Codex
            raise _unloadable(r, f"invalid matcher {debug(str(matcher))} in {r.path}: {bad}",
                              (*gk, "matcher"))  # fmt: skip
        for h, hook in enumerate(raw_hooks):
            hk: KeyPath = (*gk, "hooks", h)
            if not isinstance(hook, dict):
                raise r.type_error(invalid(hook, "a map"), ("hooks",))
            kind = hook.get("type", "command")
            if kind in ("prompt", "agent"):
                raise _unloadable(r, f"skipping {kind} hook in {r.path}: {kind} hooks are not "
                                  "supported yet", (*hk, "type"))  # fmt: skip
            if kind != "command":  # mcp_tool, or a type Codex does not know
                raise _unloadable(r, f"{debug(str(kind))} hooks are not run by ShellGate "
                                  f"(in {r.path}): a managed hook it cannot run is never skipped",
                                  (*hk, "type"))  # fmt: skip
            command = string(r, hook.get("command"), ("hooks",), hooks=True)
            if not command.strip():
                raise _unloadable(r, f"skipping empty hook command in {r.path}",
                                  (*hk, "command"))  # fmt: skip
            timeout = hook.get("timeout")
            if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int)):
                raise r.type_error(invalid(timeout, "u64"), ("hooks",))
            is_async = hook.get("async", False)
            if not isinstance(is_async, bool):
                raise r.type_error(invalid(is_async, "a boolean"), ("hooks",))
            commands.append(HookCommand(command, timeout, is_async))
        groups.append(HookGroup(matcher, tuple(commands)))
    return tuple(groups)


def _unloadable(r: Reader, message: str, keys: KeyPath) -> RequirementsError:
    return r.fail(f"failed to load required managed hooks: {message}", keys,
                  code="requirements-hooks")  # fmt: skip
