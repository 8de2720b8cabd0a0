"""Drive one real agent CLI turn offline: a temporary HOME (and CODEX_HOME), ShellGate's hook
installed there with `shellgate hook install`, the CLI and a stand-in model together inside
`unshare -rn` (only loopback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from realclients import run_in_netns, tool_results

HERE = Path(__file__).parent


# What the Claude Code and Gemini CLI tests load: one rule forbids, one asks.
RULES = """\
prefix_rule(pattern=["rm"], decision="forbidden", justification="keep the victim file")
prefix_rule(pattern=["touch", "asked"], decision="prompt", justification="asked needs a look")
"""
CODEX_PROVIDER = '{name="standin",base_url="{URL}",wire_api="responses"}'


def bash(command: str) -> dict[str, Any]:
    """A script step: the model calls the agent's own shell tool with `command`."""
    return {"tool": "<auto>", "command": command}


@dataclass
class Home:
    root: Path
    home: Path
    codex_home: Path
    ws: Path

    @classmethod
    def make(cls, base: Path) -> Home:
        home, ws = base / "home", base / "ws"
        codex_home = home / ".codex"
        for d in (home, ws, codex_home / "rules"):
            d.mkdir(parents=True, exist_ok=True)
        return cls(base, home, codex_home, ws)

    def rules(self, text: str) -> None:
        (self.codex_home / "rules" / "default.rules").write_text(text)

    def env(self, **extra: str) -> dict[str, str]:
        keep = ("PATH", "LANG", "LC_ALL", "TERM", "SHELLGATE_BWRAP")
        env = {k: v for k, v in os.environ.items() if k in keep}
        env.update(
            HOME=str(self.home),
            CODEX_HOME=str(self.codex_home),
            XDG_RUNTIME_DIR=str(self.root / "run"),
            TMPDIR=str(self.root / "tmp"),
        )
        (self.root / "run").mkdir(mode=0o700, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        env.update(extra)
        return env

    def npm_global(self, *names: str) -> Path:
        """The real CLIs `names` ("claude", "gemini", "copilot") where `npm install -g` with
        the prefix ~/.npm-global puts them (not on PATH): `hook doctor` must find them there."""
        import realtools  # deferred: only the doctor's tests install CLIs in a home

        bin_dir = self.home / ".npm-global" / "bin"
        bin_dir.mkdir(parents=True, exist_ok=True)
        for name in names:
            (bin_dir / name).symlink_to(realtools.require(realtools.tool_path(name)))
        return bin_dir

    def install(self, agent: str, *flags: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "shellgate", "hook", "install", agent, *flags],
            env=self.env(),
            cwd=self.ws,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout


def run_turn(
    home: Home,
    script: list[dict[str, Any]],
    argv: list[str],
    env: dict[str, str],
    timeout: float = 90,
    etc: Mapping[str, Path] | None = None,
) -> dict[str, Any]:
    """`etc`: folders standing in for /etc/NAME (admin settings), see tests/etc_overlay.py."""
    return run_in_netns(home.root, script, argv, env, cwd=home.ws, timeout=timeout, etc=etc)


def claude_turn(
    home: Home,
    claude: Path,
    script: list[dict[str, Any]],
    etc: Mapping[str, Path] | None = None,
    **env: str,
) -> dict[str, Any]:
    return run_turn(
        home,
        script,
        [str(claude), "-p", "do the task", "--output-format", "stream-json", "--verbose"],
        home.env(
            ANTHROPIC_API_KEY="dummy",
            ANTHROPIC_BASE_URL="{ROOT}",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
            **env,
        ),
        etc=etc,
    )


GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def gemini_prepare(home: Home) -> None:
    settings = home.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(GEMINI_SETTINGS))


def gemini_turn(
    home: Home,
    gemini: Path,
    script: list[dict[str, Any]],
    etc: Mapping[str, Path] | None = None,
    **env: str,
) -> dict[str, Any]:
    return run_turn(
        home,
        script,
        [
            str(gemini),
            "-p",
            "do the task",
            "-m",
            "gemini-2.5-flash",
            "--output-format",
            "stream-json",
        ],
        home.env(
            GEMINI_API_KEY="dummy",
            GOOGLE_GEMINI_BASE_URL="{ROOT}",
            GEMINI_CLI_HOME=str(home.home),
            GEMINI_CLI_TRUST_WORKSPACE="true",
            GEMINI_CLI_NO_RELAUNCH="true",
            **env,
        ),
        timeout=120,
        etc=etc,
    )


def copilot_turn(
    home: Home, copilot: Path, script: list[dict[str, Any]], *flags: str, **env: str
) -> dict[str, Any]:
    """`copilot -p` on the stand-in (Chat Completions), no sign-in, `--allow-all-tools`: what
    ShellGate blocks stays blocked even when Copilot itself would allow everything."""
    import realtools

    return run_turn(
        home,
        script,
        [str(copilot), "-p", "do the task", "--allow-all-tools", "--output-format", "json", *flags],
        home.env(
            COPILOT_HOME=str(home.home / ".copilot"),
            COPILOT_PKG_CACHE_HOME=str(realtools.copilot_cache()),
            COPILOT_AUTO_UPDATE="false",
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL="{URL}",
            COPILOT_MODEL="gpt-4.1",
            XDG_CACHE_HOME=str(home.home / ".cache"),
            XDG_CONFIG_HOME=str(home.home / ".config"),
            **env,
        ),
        timeout=120,
    )


def codex_exec(codex: str, *flags: str) -> list[str]:
    """`codex exec` on the stand-in, quiet (no update check, no analytics, no plugins)."""
    config = ("model_provider=standin", f"model_providers.standin={CODEX_PROVIDER}",
              "model=stand-in", "check_for_update_on_startup=false", "analytics.enabled=false")
    return [codex, "exec", "--json", "--skip-git-repo-check", *flags,
            *(arg for c in config for arg in ("-c", c)), "--disable", "plugins", "do the task"]


def codex_doctor(home: Home, codex: str) -> subprocess.CompletedProcess[str]:
    """`shellgate hook doctor codex`, offline: Codex's own app-server answers `hooks/list`."""
    return subprocess.run(
        ["unshare", "-rn", sys.executable, "-m", "shellgate", "hook", "doctor", "codex",
         "--codex", codex],
        env=home.env(), cwd=home.ws, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def victim_script(home: Home) -> tuple[Path, list[dict[str, Any]]]:
    """RULES, a `victim` file they keep, and five commands: forbidden, allowed, a write to the
    path returned (outside the workspace), one that needs approval, a forbidden one behind a
    wrapper. `told_about_victim` checks what they did."""
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    outside = home.home / "outside"
    return outside, [
        bash("rm -f victim"),
        bash("echo hi > made && cat made"),
        bash(f"touch {outside}"),
        bash("touch asked"),
        bash("timeout 5 rm -f victim"),
    ]


def told_about_victim(home: Home, outside: Path, told: list[str]) -> None:
    # forbidden: not run, the model reads Codex's words and the rule's justification
    assert (home.ws / "victim").read_text() == "keep"
    assert "rejected: keep the victim file" in told[0] and "ShellGate" in told[0]
    # allowed: ran (in the sandbox, inside the workspace)
    assert (home.ws / "made").read_text() == "hi\n" and "hi" in told[1]
    # the sandbox kept the write outside the workspace off the disk, and said so
    assert not outside.exists()
    assert "Read-only file system" in told[2], told[2]
    # needs approval, no editor: the agent's own prompt, which `-p` cannot show: not run
    assert not (home.ws / "asked").exists()
    assert "asked needs a look" in told[3] and "no editor is reachable" in told[3], told[3]
    # a wrapper does not hide `rm` from the rules: judged on its own, still forbidden
    assert "bash runs `rm -f victim` (through `timeout`)" in told[4]
    assert "keep the victim file" in told[4]


def kept_folder(home: Home) -> Path:
    """A folder outside the workspace with a file in it, for `find KEPT -delete`."""
    kept = home.home / "kept"
    kept.mkdir()
    (kept / "file").write_text("keep")
    return kept


def spellings_leave_build(
    home: Home, agent: str, turn: Callable[..., dict[str, Any]], cli: Path
) -> list[str]:
    """Issue 18: bash runs `rm` for `\\rm` and inside `sh -c`; a rule forbidding rm holds and
    `build` stays. What the model was told."""
    home.rules(RULES)
    (home.ws / "build").mkdir()
    (home.ws / "build" / "out.o").write_text("obj")
    home.install(agent)
    script = [bash("\\rm -rf build"), bash("sh -c 'rm -rf build'"), {"text": "fin"}]
    result = turn(home, cli, script)
    told = tool_results(result["requests"][-1])
    assert len(told) == 2, told
    assert (home.ws / "build" / "out.o").read_text() == "obj"
    return told


def broken_rules_block(
    home: Home, agent: str, turn: Callable[..., dict[str, Any]], cli: Path
) -> None:
    """Rules that do not load (no closing paren): `touch made`, which they would allow, does
    not run, and the model is told where the rules break."""
    home.rules('prefix_rule(pattern=["touch"], decision="allow"\n')
    home.install(agent)
    result = turn(home, cli, [bash("touch made"), {"text": "fin"}])
    told = tool_results(result["requests"][-1])
    assert not (home.ws / "made").exists()
    assert len(told) == 1 and "the rules do not load" in told[0], told
    assert "default.rules:2:" in told[0]  # file, line and column


def failing_hook_blocks(home: Home, turn: Callable[..., dict[str, Any]], cli: Path) -> str:
    """`touch made` under a hook that cannot work (a fallback setting it does not know): it
    blocks, never passes. What the model was told."""
    script = [bash("touch made"), {"text": "fin"}]
    result = turn(home, cli, script, SHELLGATE_HOOK_FALLBACK="sometimes")
    told = tool_results(result["requests"][-1])
    assert not (home.ws / "made").exists()
    assert len(told) == 1 and "must be ask or deny" in told[0], told
    return told[0]
