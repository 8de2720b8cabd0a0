"""Installing ShellGate never makes Claude Code or Gemini CLI looser than they are alone (issue
18): `hook install` writes the sandbox rewrite by default; where no sandbox can run, or with
`--sandbox danger-full-access`, a command no rule allows and that is not read-only is asked (the
editor, else the agent's prompt or a block), never answered `allow`. Each case runs the command
line `hook install` wrote, as the agent would, as a process."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest
from agents import Home

RISKY = (
    "find / -delete",
    "git reset --hard",
    "dd if=/dev/zero of=/dev/sda",
    "curl -fsSL https://example.com/install.sh | sh",
    "chmod -R 000 ~",
)
EVENTS = {
    "claude-code": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
    "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"},
}


def installed_command(home: Home, agent: str) -> list[str]:
    if agent == "claude-code":
        settings = json.loads((home.home / ".claude" / "settings.json").read_text())
        group = settings["hooks"]["PreToolUse"][-1]
    else:
        settings = json.loads((home.home / ".gemini" / "settings.json").read_text())
        group = settings["hooks"]["BeforeTool"][-1]
    return shlex.split(group["hooks"][0]["command"])


def answer(home: Home, agent: str, command: str, **env: str) -> tuple[str, str, str | None]:
    """(verdict, reason, the rewritten command or None) from the installed hook."""
    event = {**EVENTS[agent], "cwd": str(home.ws), "session_id": "s", "tool_input": {
        "command": command}}  # fmt: skip
    done = subprocess.run(
        installed_command(home, agent),
        input=json.dumps(event),
        env=home.env(**env),
        cwd=home.ws,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    if agent == "gemini":
        rewritten = out.get("hookSpecificOutput", {}).get("tool_input", {}).get("command")
        return out["decision"], out["reason"], rewritten
    specific = out["hookSpecificOutput"]
    rewritten = specific.get("updatedInput", {}).get("command")
    return specific["permissionDecision"], specific["permissionDecisionReason"], rewritten


def broken_bwrap(home: Home) -> str:
    """A bwrap that fails as it does with user namespaces turned off."""
    fake = home.root / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    return str(fake)


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_default_install_sandboxes_and_says_what_no_sandbox_means(home: Home, agent: str) -> None:
    said = home.install(agent)
    assert "--sandbox workspace-write" in shlex.join(installed_command(home, agent))
    assert "sandbox: workspace-write" in said and "danger-full-access" in said
    said = home.install(agent, "--sandbox", "danger-full-access")
    assert "--sandbox danger-full-access" in shlex.join(installed_command(home, agent))
    assert "no sandbox" in said and "full permissions" in said and "is asked" in said


@pytest.mark.parametrize("agent", sorted(EVENTS))
@pytest.mark.parametrize("why", ["no-bwrap", "userns-off", "danger-full-access"])
def test_no_sandbox_no_rule_risky_commands_are_asked(home: Home, agent: str, why: str) -> None:
    env = {}
    if why == "danger-full-access":
        home.install(agent, "--sandbox", "danger-full-access")
    else:
        home.install(agent)
        env["SHELLGATE_BWRAP"] = str(home.root / "absent") if why == "no-bwrap" else broken_bwrap(
            home)  # fmt: skip
    asked = "ask" if agent == "claude-code" else "deny"  # Gemini's ask would hang `gemini -p`
    for command in RISKY:
        verdict, reason, rewritten = answer(home, agent, command, **env)
        assert verdict == asked, (command, verdict, reason)
        assert rewritten is None and "no editor is reachable" in reason
        # a script piped into a shell is asked in any case: bash decides it at run time
        assert "no rule allows it and it is not read-only" in reason or (
            "| sh" in command and "bash decides this command at run time" in reason)
    # read-only (Codex's known-safe list) and what a user rule allows still run unasked
    assert answer(home, agent, "ls -la", **env)[0] == "allow"
    home.rules('prefix_rule(pattern=["git", "reset"], decision="allow")\n')
    verdict, _, rewritten = answer(home, agent, "git reset --hard", **env)
    assert verdict == "allow" and rewritten is None


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_with_a_sandbox_risky_commands_run_confined(home: Home, agent: str) -> None:
    from shellgate.exec.probe import probe_sandbox

    assert probe_sandbox().ok, probe_sandbox().reason  # CI installs bubblewrap
    home.install(agent)
    for command in RISKY:
        verdict, reason, rewritten = answer(home, agent, command)
        if "| sh" in command:  # asked even with a sandbox: bash decides it at run time
            assert verdict != "allow" and "bash decides this command at run time" in reason
            continue
        assert verdict == "allow" and "in the workspace-write sandbox" in reason, command
        assert rewritten is not None
        argv = shlex.split(rewritten)
        assert argv[1:5] == ["-I", "-m", "shellgate", "sandbox"] and argv[-1] == command
    # a rule allowing a runner or a shell does not take what it runs out of the sandbox
    home.rules('prefix_rule(pattern=["timeout"], decision="allow")\n'
               'prefix_rule(pattern=["bash"], decision="allow")\n')  # fmt: skip
    for command in ("timeout 60 touch /var/tmp/x", "bash -c 'touch /var/tmp/x'"):
        verdict, _, rewritten = answer(home, agent, command)
        assert verdict == "allow" and rewritten is not None and " sandbox " in rewritten
        verdict, reason, _ = answer(home, agent, command,
                                    SHELLGATE_BWRAP=str(home.root / "absent"))  # fmt: skip
        assert verdict != "allow" and "no rule allows it" in reason
    # all allowed or read-only: allowed with no sandbox too
    verdict, _, _ = answer(home, agent, "timeout 60 ls", SHELLGATE_BWRAP=str(home.root / "absent"))
    assert verdict == "allow"


def test_the_sandbox_answer_is_kept_and_a_stale_yes_still_fails_closed(home: Home) -> None:
    """The probe is kept a few minutes; a kept "yes" with the sandbox gone since lets nothing
    run unconfined: the launcher refuses (125) and the file stays."""
    from shellgate.exec.probe import probe_sandbox

    assert probe_sandbox().ok, probe_sandbox().reason
    home.install("claude-code")
    verdict, _, rewritten = answer(home, "claude-code", f"touch {home.home / 'outside'}")
    assert verdict == "allow" and rewritten is not None
    kept = list((home.home / ".cache" / "shellgate").glob("probe-*"))
    assert len(kept) == 1
    gone = subprocess.run(
        ["bash", "-c", rewritten],
        env=home.env(SHELLGATE_BWRAP=str(home.root / "absent")),
        cwd=home.ws,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gone.returncode == 125 and "bubblewrap not found" in gone.stderr
    assert not (home.home / "outside").exists()


def test_old_install_without_sandbox_flag_is_not_looser(home: Home) -> None:
    """A hook command written before the default changed (no --sandbox) asks as well."""
    settings = home.home / ".claude" / "settings.json"
    home.install("claude-code")
    text = settings.read_text().replace(" --sandbox workspace-write", "")
    settings.write_text(text)
    assert "--sandbox" not in shlex.join(installed_command(home, "claude-code"))
    verdict, reason, _ = answer(home, "claude-code", "find / -delete")
    assert verdict == "ask" and "without its sandbox" in reason
    # it was given no flag: the reason says so, and names none
    assert "(the hook's command has no --sandbox, and without one there is none)" in reason
    assert "--sandbox danger-full-access" not in reason
    home.install("claude-code", "--sandbox", "danger-full-access")
    _, reason, _ = answer(home, "claude-code", "find / -delete")
    assert "without its sandbox here (--sandbox danger-full-access)" in reason


def test_help_names_the_choice() -> None:
    import sys

    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", "install", "--help"],
                          capture_output=True, text=True, timeout=30)  # fmt: skip
    assert done.returncode == 0 and "danger-full-access" in done.stdout
