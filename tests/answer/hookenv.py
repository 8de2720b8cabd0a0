"""Codex hook set-ups for tests, written as Codex reads them: `$CODEX_HOME/config.toml`
(`[[hooks.<Event>]]` and the `[hooks.state]` trust), `$CODEX_HOME/hooks.json`, and the admin's
`requirements.toml` `[hooks]`. Each hook is the real process `codex_hook.py CTL NAME`."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shellgate.codexconfig.hook_trust import state_key, trust_hash

HOOK = Path(__file__).with_name("codex_hook.py")


@dataclass
class Setup:
    root: Path
    behaviour: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        self.etc.mkdir(parents=True, exist_ok=True)
        self.ws.mkdir(parents=True, exist_ok=True)
        self.write_ctl()

    @property
    def home(self) -> Path:
        return self.root / "codex-home"

    @property
    def etc(self) -> Path:
        return self.root / "etc-codex"

    @property
    def ws(self) -> Path:
        return self.root / "ws"

    @property
    def ctl(self) -> Path:
        return self.root / "ctl.json"

    @property
    def log(self) -> Path:
        return self.root / "hooklog.jsonl"

    def write_ctl(self) -> None:
        self.ctl.write_text(json.dumps({"log": str(self.log), **self.behaviour}))

    def answer(self, key: str, behaviour: dict[str, Any]) -> None:
        self.behaviour[key] = behaviour
        self.write_ctl()

    def command(self, name: str) -> str:
        return f"{sys.executable} -S {HOOK} {self.ctl} {name}"

    def calls(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def user_toml(self, hooks: list[tuple[str, str | None, str, int | None]], *,
                  trusted: bool = True, tamper: bool = False) -> None:
        """config.toml hooks: (event, matcher, name, timeout), one group each."""
        config = self.home / "config.toml"
        lines, state = [], []
        index: dict[str, int] = {}
        for event, matcher, name, timeout in hooks:
            group = index.get(event, 0)
            index[event] = group + 1
            lines.append(f"[[hooks.{event}]]")
            if matcher is not None:
                lines.append(f"matcher = {json.dumps(matcher)}")
            lines.append(f"[[hooks.{event}.hooks]]")
            lines.append('type = "command"')
            lines.append(f"command = {json.dumps(self.command(name))}")
            if timeout is not None:
                lines.append(f"timeout = {timeout}")
            if trusted:
                value = trust_hash(event, matcher, self.command(name) + (" " if tamper else ""),
                                   timeout)
                state.append(f"[hooks.state.{json.dumps(state_key(config, event, group))}]")
                state.append(f"trusted_hash = {json.dumps(value)}")
        config.write_text("\n".join(lines + state) + "\n")

    def user_json(self, hooks: list[tuple[str, str | None, str, int | None]]) -> None:
        """hooks.json hooks, trusted in config.toml (appended)."""
        path = self.home / "hooks.json"
        table: dict[str, list[Any]] = {}
        state = []
        for event, matcher, name, timeout in hooks:
            group = len(table.setdefault(event, []))
            handler: dict[str, Any] = {"type": "command", "command": self.command(name)}
            if timeout is not None:
                handler["timeout"] = timeout
            entry: dict[str, Any] = {"hooks": [handler]}
            if matcher is not None:
                entry["matcher"] = matcher
            table[event].append(entry)
            state.append(f"[hooks.state.{json.dumps(state_key(path, event, group))}]")
            value = trust_hash(event, matcher, self.command(name), timeout)
            state.append(f"trusted_hash = {json.dumps(value)}")
        path.write_text(json.dumps({"hooks": table}))
        config = self.home / "config.toml"
        before = config.read_text() if config.exists() else ""
        config.write_text(before + "\n".join(state) + "\n")

    def managed(self, hooks: list[tuple[str, str | None, str, int | None]], *,
                only: bool = False, extra: str = "") -> Path:
        lines = ["allow_managed_hooks_only = true"] if only else []
        lines += [extra] if extra else []
        lines.append("[hooks]")
        for event, matcher, name, timeout in hooks:
            lines.append(f"[[hooks.{event}]]")
            if matcher is not None:
                lines.append(f"matcher = {json.dumps(matcher)}")
            lines.append(f"[[hooks.{event}.hooks]]")
            lines.append('type = "command"')
            lines.append(f"command = {json.dumps(self.command(name))}")
            if timeout is not None:
                lines.append(f"timeout = {timeout}")
        path = self.etc / "requirements.toml"
        path.write_text("\n".join(lines) + "\n")
        return path


def pre(decision: str | None = None, reason: str | None = "ShellGate says no",
        **extra: Any) -> dict[str, Any]:
    hso: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if decision:
        hso["permissionDecision"] = decision
        if reason is not None:
            hso["permissionDecisionReason"] = reason
    hso.update(extra)
    return {"kind": "json", "stdout": {"hookSpecificOutput": hso}}


def perm(behavior: str, message: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"behavior": behavior}
    if message:
        d["message"] = message
    return {"kind": "json", "stdout": {"hookSpecificOutput": {
        "hookEventName": "PermissionRequest", "decision": d}}}
