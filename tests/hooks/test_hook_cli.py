"""`shellgate hook` as the agents run it (a process, JSON on stdin), and `hook install` on real
config files: every path answers, an internal error blocks, merging keeps the user's settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from agents import Home

import realtools

EVENTS = {
    "codex": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}},
    "claude-code": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}},
    "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {}},
    # Copilot CLI's PreToolUse (VS Code's shapes: test_copilot_hook.py)
    "copilot": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}},
}


def hook(
    home: Home, agent: str, stdin: bytes, *flags: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shellgate", "hook", agent, *flags],
        input=stdin.decode("utf-8", "replace"),
        env=home.env(**env),
        cwd=home.ws,
        capture_output=True,
        text=True,
        timeout=60,
    )


def event(home: Home, agent: str, command: str) -> bytes:
    e = json.loads(json.dumps(EVENTS[agent]))
    e.update(cwd=str(home.ws), session_id="s1")
    e["tool_input"]["command"] = command
    return json.dumps(e).encode()


@pytest.mark.parametrize("agent", sorted(EVENTS))
@pytest.mark.parametrize(
    "stdin", [b"{not json", b"[1, 2]", b"", b'{"hook_event_name": "PreToolUse"}']
)
def test_bad_stdin_blocks(home: Home, agent: str, stdin: bytes) -> None:
    done = hook(home, agent, stdin)
    assert done.returncode == 2 and done.stdout == ""
    assert f"shellgate hook {agent}:" in done.stderr and "blocked" in done.stderr


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_stdin_not_utf8_is_said_so_with_where(home: Home, agent: str) -> None:
    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", agent],
                          input=b'{"tool_input":\n {"command": "ls \xff"}}', env=home.env(),
                          cwd=home.ws, capture_output=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and done.stdout == b""
    assert "stdin is not UTF-8 (byte 0xff at line 2, column 18)" in done.stderr.decode()


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_rules_that_do_not_load_block_naming_the_file(home: Home, agent: str) -> None:
    home.rules('prefix_rule(pattern=["ls"], decision="allow"\n')
    done = hook(home, agent, event(home, agent, "ls"))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    if agent == "gemini":
        assert answer["decision"] == "deny"
        reason = answer["reason"]
    else:
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert "the rules do not load" in reason and "default.rules:2:" in reason


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_bad_options_block(home: Home, agent: str) -> None:
    assert hook(home, agent, event(home, agent, "ls"), "--sandbox", "nope").returncode == 2
    assert hook(home, agent, event(home, agent, "ls"), SHELLGATE_HOOK_FALLBACK="x").returncode == 2


def test_answers_in_each_agents_format(home: Home) -> None:
    home.rules(
        'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
        'prefix_rule(pattern=["git", "push"], decision="prompt")\n'
    )
    claude = json.loads(hook(home, "claude-code", event(home, "claude-code", "rm -rf x")).stdout)
    assert claude["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "no rm" in claude["hookSpecificOutput"]["permissionDecisionReason"]
    asks = json.loads(hook(home, "claude-code", event(home, "claude-code", "git push")).stdout)
    assert asks["hookSpecificOutput"]["permissionDecision"] == "ask"
    gem = json.loads(hook(home, "gemini", event(home, "gemini", "git push")).stdout)
    assert gem["decision"] == "deny" and "no editor is reachable" in gem["reason"]
    gem_ask = hook(home, "gemini", event(home, "gemini", "git push"), "--fallback", "ask")
    assert json.loads(gem_ask.stdout)["decision"] == "ask"
    quiet = hook(home, "codex", event(home, "codex", "rm -rf x"))  # Codex applies its rules itself
    assert quiet.returncode == 0 and quiet.stdout == ""
    perm = json.loads(event(home, "claude-code", "git push"))
    perm["hook_event_name"] = "PermissionRequest"
    out = json.loads(hook(home, "claude-code", json.dumps(perm).encode()).stdout)
    assert "decision" not in out.get("hookSpecificOutput", {})  # no decision: Claude asks


def test_install_merges_is_idempotent_backs_up_and_uninstalls(home: Home) -> None:
    settings = home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    user = {
        "permissions": {"allow": ["Read"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "mine"}]}]
        },
    }
    settings.write_text(json.dumps(user))
    first = home.install("claude-code")
    assert "backup" in first
    second = home.install("claude-code", "--sandbox", "read-only")  # replaces ours, adds none
    data = json.loads(settings.read_text())
    assert data["permissions"] == user["permissions"]
    groups = data["hooks"]["PreToolUse"]
    assert groups[0] == user["hooks"]["PreToolUse"][0] and len(groups) == 2
    assert "--sandbox read-only" in groups[1]["hooks"][0]["command"]
    assert "already installed" in home.install("claude-code", "--sandbox", "read-only")
    assert "settings.json" in second
    backups = settings.parent.glob("settings.json.shellgate-*.bak")
    assert user in [json.loads(b.read_text()) for b in backups]  # as it was before ShellGate
    home.install("claude-code", "--uninstall")
    assert json.loads(settings.read_text()) == user


def test_install_refuses_a_broken_file(home: Home) -> None:
    settings = home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{broken")
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", "hook", "install", "claude-code"],
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "not valid JSON" in done.stderr
    assert settings.read_text() == "{broken"


def test_codex_install_writes_trust_next_to_existing_config(home: Home) -> None:
    config = home.codex_home / "config.toml"
    config.write_text(
        'model = "x"\n\n[hooks.state."/elsewhere:pre_tool_use:0:0"]\ntrusted_hash = "sha256:1"\n'
    )
    home.install("codex")
    home.install("codex")
    data = tomllib.loads(config.read_text())
    state = data["hooks"]["state"]
    assert (
        data["model"] == "x" and state["/elsewhere:pre_tool_use:0:0"]["trusted_hash"] == "sha256:1"
    )
    declared = str(home.codex_home / "hooks.json")
    assert {f"{declared}:pre_tool_use:0:0", f"{declared}:permission_request:0:0"} <= set(state)
    home.install("codex", "--uninstall")
    state = tomllib.loads(config.read_text())["hooks"]["state"]
    assert list(state) == ["/elsewhere:pre_tool_use:0:0"]
    assert not json.loads((home.codex_home / "hooks.json").read_text() or "{}").get("hooks")


def test_sandbox_launcher_keeps_writes_in_the_workspace(home: Home) -> None:
    outside = home.home / "outside"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "shellgate",
            "sandbox",
            "--mode",
            "workspace-write",
            "--",
            "bash",
            "-c",
            f"echo in > inside; touch {outside}; exit 3",
        ],
        cwd=home.ws,
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3  # the command's own status
    assert (home.ws / "inside").read_text() == "in\n" and not outside.exists()
    assert "Read-only file system" in done.stderr and "denied by the workspace-write" in done.stderr
    ro = subprocess.run(
        [sys.executable, "-m", "shellgate", "sandbox", "--mode", "read-only", "--", "touch", "x"],
        cwd=home.ws,
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ro.returncode != 0 and not (home.ws / "x").exists()


def test_hook_help(home: Home) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", "hook", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0 and "SHELLGATE_HOOK_FALLBACK" in done.stdout
    assert Path(__file__).exists()


def test_kept_decisions_follow_the_rules_on_disk(home: Home) -> None:
    cache = home.root / "cache"
    ev = event(home, "claude-code", "touch x")

    def verdict() -> str:
        done = hook(home, "claude-code", ev, XDG_CACHE_HOME=str(cache))
        return str(json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"])

    home.rules('prefix_rule(pattern=["touch"], decision="allow")\n')
    assert verdict() == "allow"
    assert len(list((cache / "shellgate" / "decisions").iterdir())) == 1  # kept
    assert verdict() == "allow"
    home.rules('prefix_rule(pattern=["touch"], decision="forbidden")\n')
    assert verdict() == "deny"  # a changed rules file is a new key
    project = home.ws / ".codex" / "rules"
    project.mkdir(parents=True)
    (project / "p.rules").write_text('prefix_rule(pattern=["touch"], decision="allow")\n')
    assert verdict() == "deny"  # a project layer Codex does not load (untrusted) changes nothing


def test_codex_pre_tool_use_blocks_a_command_its_split_hides(home: Home) -> None:
    home.rules('prefix_rule(pattern=["rm"], decision="forbidden")\n')
    done = hook(home, "codex", event(home, "codex", "timeout 5 rm -rf x"))
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    reason = answer["permissionDecisionReason"]
    assert "bash runs `rm -rf x` (through `timeout`)" in reason and "forbids" in reason
    assert hook(home, "codex", event(home, "codex", "git status")).stdout == ""
    coproc = json.loads(hook(home, "codex", event(home, "codex", "coproc rm x")).stdout)
    reason = coproc["hookSpecificOutput"]["permissionDecisionReason"]
    assert "bash runs `rm x`" in reason and "`coproc` is a bash keyword" in reason


def test_codex_permission_request_is_quiet_without_an_editor(home: Home) -> None:
    ev = json.loads(event(home, "codex", "git push"))
    ev["hook_event_name"] = "PermissionRequest"
    done = hook(home, "codex", json.dumps(ev).encode())
    assert done.returncode == 0 and done.stdout == ""  # Codex asks as usual


def test_gemini_judges_the_command_where_it_runs(home: Home) -> None:
    sub = home.ws / "sub"
    (sub / ".codex" / "rules").mkdir(parents=True)
    (sub / ".git").mkdir()
    ev = json.loads(event(home, "gemini", "pwd"))
    ev["tool_input"]["dir_path"] = "sub"
    done = hook(home, "gemini", json.dumps(ev).encode(), "--sandbox", "read-only")
    rewritten = json.loads(done.stdout)["hookSpecificOutput"]["tool_input"]["command"]
    assert f"--cwd {sub} " in rewritten


@realtools.needs("claude", "gemini")
def test_doctor_runs_the_installed_hooks(home: Home) -> None:
    def doctor(agent: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "shellgate", "hook", "doctor", agent],
            env=home.env(),
            cwd=home.ws,
            capture_output=True,
            text=True,
            timeout=60,
        )

    home.npm_global("claude", "gemini")
    missing = doctor("claude-code")
    assert missing.returncode == 1 and "no ShellGate PreToolUse hook" in missing.stdout
    home.install("claude-code")
    assert doctor("claude-code").stdout.startswith("claude-code: live")
    home.install("gemini")
    (home.home / ".gemini" / "policies" / "shellgate.toml").unlink()
    broken = doctor("gemini")
    assert broken.returncode == 1 and "shellgate.toml is missing" in broken.stdout


def test_install_refuses_an_approval_policy_the_hook_could_not_use(home: Home) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "shellgate",
            "hook",
            "install",
            "claude-code",
            "--approval-policy",
            "sometimes",
        ],
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--approval-policy" in done.stderr
    assert not (home.home / ".claude" / "settings.json").exists()


def test_memo_prunes_what_went_unused(tmp_path: Path) -> None:
    import os
    import time

    from shellgate.hooks import memo

    old, fresh = tmp_path / "old", tmp_path / "fresh"
    for path in (old, fresh):
        memo.store(str(path), {"decision": "allow"})
    stale = time.time() - memo.KEEP_SECONDS - 60
    os.utime(old, (stale, stale))
    memo._prune(str(tmp_path))
    assert not old.exists() and memo.load(str(fresh)) == {"decision": "allow"}


@pytest.mark.parametrize("agent", ["claude-code", "gemini", "copilot"])
def test_a_command_hidden_from_the_split_is_judged_on_its_own(home: Home, agent: str) -> None:
    home.rules(
        'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
        'prefix_rule(pattern=["timeout"], decision="allow")\n'
    )

    def answer(command: str) -> tuple[str, str]:
        out = json.loads(hook(home, agent, event(home, agent, command)).stdout)
        if agent == "gemini":
            return out["decision"], out["reason"]
        specific = out["hookSpecificOutput"]
        return specific["permissionDecision"], specific["permissionDecisionReason"]

    for command in ("timeout 5 rm -rf x", "env A=1 rm x", "coproc rm x", "time rm -rf x"):
        verdict, reason = answer(command)
        assert verdict == "deny", (command, reason)
        assert "bash runs `rm" in reason and "no rm" in reason
    assert answer("timeout 60 ls")[0] == "allow"  # a wrapper around an allowed command is fine
    # a rule allowing the wrapper does not let what it runs out of the sandbox (none here)
    verdict, reason = answer("timeout 60 touch y")
    assert verdict != "allow" and "no rule allows it" in reason


def test_memo_is_bounded(tmp_path: Path) -> None:
    """Issue 18: a 5 MB command left a 15 MB entry. Too large an entry is not kept, and the
    folder is cut back to its cap, least recently used first."""
    import os

    from shellgate.hooks import memo

    memo.store(str(tmp_path / "huge"), {"explain": "x" * (memo.MAX_ENTRY + 1)})
    assert not (tmp_path / "huge").exists()
    for i in range(10):
        path = tmp_path / f"e{i}"
        memo.store(str(path), {"explain": "x" * 1000})
        os.utime(path, (1e9 + i, 2e9 + i))  # e9 used last
    memo._prune(str(tmp_path), max_total=5 * 1024)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e5", "e6", "e7", "e8", "e9"]


def test_a_5_mb_command_is_decided_and_not_kept(home: Home) -> None:
    cache = home.root / "cache"
    command = "echo " + "a" * 5_000_000
    done = hook(home, "claude-code", event(home, "claude-code", command), "--sandbox",
                "workspace-write", XDG_CACHE_HOME=str(cache))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] in ("allow", "ask")
    kept = [p for p in cache.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in kept) < 64 * 1024, kept


SPELLINGS = [
    r"\rm -rf x", r"r\m -rf x", "$'rm' -rf x", r"$'\x72m' -rf x", "'curl' -s u",
    "rm${IFS}-rf${IFS}x", "{rm,-rf,x}", "sh -c 'git push origin main'", "dash -c 'rm -rf x'",
    "bash <<< 'rm -rf x'", "echo 'rm -rf x' | bash", "busybox rm -rf x",
    "builtin command rm -rf x", r"( \rm -rf x )", "git -C . push origin main",
    "find . -exec rm {} +", "xargs rm",
]


@pytest.mark.parametrize("agent", sorted(EVENTS))
def test_no_spelling_of_a_forbidden_program_passes_the_hook(home: Home, agent: str) -> None:
    """The issue's spellings, through `shellgate hook AGENT` as a process on real rules."""
    home.rules(
        'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
        'prefix_rule(pattern=["curl"], decision="forbidden", justification="no curl")\n'
        'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="no push")\n'
    )
    for command in [*SPELLINGS, "$CMD -rf x"]:
        done = hook(home, agent, event(home, agent, command))
        assert done.returncode == 0, (command, done.stderr)
        out = json.loads(done.stdout)
        if agent == "gemini":
            verdict, reason = out["decision"], out["reason"]
        else:
            specific = out["hookSpecificOutput"]
            verdict, reason = specific["permissionDecision"], specific["permissionDecisionReason"]
        if command.startswith("$CMD"):  # asked (the agent's own prompt here), never allowed
            assert verdict in ("ask", "deny"), (agent, command, reason)
            assert "bash decides this command at run time" in reason
        else:
            assert verdict == "deny", (agent, command, reason)
            assert any(f"no {p}" in reason for p in ("rm", "curl", "push")), (command, reason)


def test_an_allowed_runner_keeps_an_unruled_command_in_the_sandbox(home: Home) -> None:
    """`find` is allowed by a rule, so Codex would run `find -exec` outside its sandbox; bash
    runs `touch`, which no rule allows: the hook's rewrite keeps it in the sandbox."""
    home.rules('prefix_rule(pattern=["find"], decision="allow")\n')

    def rewritten(command: str) -> str | None:
        done = hook(home, "gemini", event(home, "gemini", command), "--sandbox", "read-only")
        out = json.loads(done.stdout)
        assert out["decision"] == "allow", out
        return (out.get("hookSpecificOutput") or {}).get("tool_input", {}).get("command")

    assert rewritten("find . -name x") is None  # all allowed by a rule: as Codex, unsandboxed
    wrapped = rewritten("find . -exec touch {} +")
    assert wrapped is not None and " sandbox --mode read-only " in wrapped


def test_a_mistyped_command_gets_the_usage_not_a_block(home: Home) -> None:
    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", "uninstall", "--help"],
                          capture_output=True, text=True, timeout=30)  # fmt: skip
    assert done.returncode == 0 and "usage:" in done.stdout and "blocked" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "shellgate", "hook", "instal", "--help"],
                          capture_output=True, text=True, timeout=30)  # fmt: skip
    first = done.stderr.splitlines()[0]
    assert done.returncode == 2 and "blocked" not in first
    assert "unknown agent or command 'instal'" in first and "usage:" in done.stderr
    typo = hook(home, "claude", event(home, "claude-code", "ls"))  # an agent's config: blocks
    assert typo.returncode == 2 and "blocked" in typo.stderr


def test_the_gemini_fallback_names_no_variable_that_is_unset(home: Home) -> None:
    home.rules('prefix_rule(pattern=["touch"], decision="prompt")\n')
    env = {k: v for k, v in home.env().items() if k != "SHELLGATE_HOOK_FALLBACK"}
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", "hook", "gemini"],
        input=event(home, "gemini", "touch x").decode(), env=env, cwd=home.ws,
        capture_output=True, text=True, timeout=60)  # fmt: skip
    answer = json.loads(done.stdout)
    assert answer["decision"] == "deny" and "no editor is reachable" in answer["reason"]
    assert "SHELLGATE_HOOK_FALLBACK" not in answer["reason"]
    assert answer["reason"].endswith("so it was not run (the fallback is deny)")


def test_uninstall_says_what_it_removed(home: Home) -> None:
    settings = home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": ["Bash(ls:*)"]}}')
    home.install("claude-code")
    home.install("copilot")
    said = home.install("claude-code", "--uninstall") + home.install("copilot", "--uninstall")
    assert f"{settings}: ShellGate's hook removed (the rest of the file kept)" in said, said
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(ls:*)"]}}
    copilot = home.home / ".copilot" / "hooks" / "shellgate.json"
    assert f"{copilot}: deleted (ShellGate's own file)" in said and not copilot.exists()
    assert ": removed" not in said


def test_approve_for_me_is_written_into_the_hook_and_refused_for_codex(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / ".codex")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "shellgate", "hook", "install", *args],
                              env=env, cwd=tmp_path, capture_output=True, text=True)  # fmt: skip

    done = run("claude-code", "--approve-for-me")
    assert done.returncode == 0, done.stderr
    hook = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    assert "--approve-for-me" in json.dumps(hook["hooks"]["PreToolUse"])
    refused = run("codex", "--approve-for-me")
    assert refused.returncode == 2 and "Codex reviews its own questions" in refused.stderr
