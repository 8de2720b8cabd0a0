"""Where ShellGate finds Codex's hooks, as Codex 0.169.0/0.171.0 do (docs/answerers.md
"observed"; the live comparison is test_hook_sources_live.py): managed_dir, a managed hook
Codex cannot load, the system folder's files, trusted projects, `enabled = false`, async
hooks; and a broken hooks file, which never turns into "no hooks"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hookenv import Setup
from hooklayers import config_hooks, deny, hooks_json, run, trust, trust_project

from shellgate.answer.codex_hooks import HookSet, discover, project_dirs
from shellgate.answer.for_agents import admin_hooks
from shellgate.codexconfig.hook_trust import trust_hash
from shellgate.codexconfig.requirements import RequirementsError, load_requirements
from shellgate.codexconfig.trust import ConfigError
from shellgate.exec.orchestrator import Status

BLOCKED = "Command blocked by PreToolUse hook: {}. Command: pwd"


def found(s: Setup) -> HookSet:
    return discover(s.home, load_requirements(s.etc), system_dir=s.etc,
                    projects=project_dirs(s.ws, s.home))  # fmt: skip


def requirements(s: Setup, body: str) -> None:
    (s.etc / "requirements.toml").write_text("[hooks]\n" + body)


def managed_group(s: Setup, name: str, matcher: str = "Bash", extra: str = "") -> str:
    return (f'[[hooks.PreToolUse]]\nmatcher = {json.dumps(matcher)}\n[[hooks.PreToolUse.hooks]]\n'
            f'type = "command"\ncommand = {json.dumps(s.command(name))}\n{extra}')


@pytest.mark.parametrize(("managed_dir", "declared"), [
    ("/etc/codex/hooksdir", "/etc/codex/hooksdir"),  # absolute: the declaring path
    ("/nonexistent/hooks", "/nonexistent/hooks"),  # need not exist
    ("hooksdir", None),  # relative: requirements.toml itself
])  # fmt: skip
def test_managed_dir_only_names_the_managed_hooks(tmp_path: Path, managed_dir: str,
                                                  declared: str | None) -> None:  # fmt: skip
    s = Setup(tmp_path, {"m1:PreToolUse": deny("managed m1 says no")})
    requirements(s, f"managed_dir = {json.dumps(managed_dir)}\n" + managed_group(s, "m1"))
    hooks_json(s.etc / "hooksdir", s, ["dirjson"])  # Codex reads no file in managed_dir
    hooks = found(s).hooks
    assert [(h.source, h.path) for h in hooks] == [
        ("system", declared or str(s.etc / "requirements.toml"))]
    assert run(s).reason == BLOCKED.format("managed m1 says no")
    assert [c["name"] for c in s.calls()] == ["m1"]


@pytest.mark.parametrize(("group", "message", "where"), [
    ('[[hooks.PreToolUse]]\nmatcher = "["\n[[hooks.PreToolUse.hooks]]\ncommand = "true"\n',
     'invalid matcher "[" in {}: regex parse error', (3, 1)),
    ('[[hooks.PreToolUse]]\nmatcher = "(?=Bash)"\n[[hooks.PreToolUse.hooks]]\n'
     'command = "true"\n', 'invalid matcher "(?=Bash)" in {}: regex parse error', (3, 1)),
    ('[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ncommand = "  "\n',
     "skipping empty hook command in {}", (4, 1)),
    ('[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "prompt"\n',
     "skipping prompt hook in {}: prompt hooks are not supported yet", (4, 1)),
    ('[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "mcp_tool"\n',
     '"mcp_tool" hooks are not run by ShellGate (in {})', (4, 1)),
])  # fmt: skip
def test_a_managed_hook_codex_cannot_load_stops_every_run(
    tmp_path: Path, group: str, message: str, where: tuple[int, int]
) -> None:
    """Codex: `Failed to create session: failed to load required managed hooks: …`."""
    s = Setup(tmp_path)
    requirements(s, group)
    path = str(s.etc / "requirements.toml")
    with pytest.raises(RequirementsError) as err:
        run(s)
    assert err.value.message.startswith("failed to load required managed hooks: "
                                        + message.format(path))  # fmt: skip
    assert (err.value.path, err.value.line, err.value.column) == (path, *where)


def test_a_bad_matcher_on_a_group_without_hooks_is_no_error(tmp_path: Path) -> None:
    s = Setup(tmp_path)
    requirements(s, '[[hooks.PreToolUse]]\nmatcher = "["\n')
    assert run(s).status is Status.COMPLETED


def test_the_system_folders_hooks_are_the_admins(tmp_path: Path) -> None:
    """/etc/codex/hooks.json and /etc/codex/config.toml: no trust, after requirements.toml's,
    before the user's; allow_managed_hooks_only keeps them."""
    s = Setup(tmp_path, {"sj:PreToolUse": deny("system json says no"),
                         "s1:PreToolUse": deny("system config says no")})  # fmt: skip
    requirements(s, managed_group(s, "m1"))
    (s.etc / "requirements.toml").write_text("allow_managed_hooks_only = true\n"
                                             + (s.etc / "requirements.toml").read_text())
    hooks_json(s.etc, s, ["sj"])
    config_hooks(s.etc / "config.toml", s, ["s1"])
    s.user_json([("PreToolUse", "Bash", "u1", None)])
    hooks = found(s)
    assert [(h.source, Path(h.path).name) for h in hooks.hooks] == [
        ("system", "requirements.toml"), ("system", "hooks.json"), ("system", "config.toml")]
    assert [k.why for k in hooks.skipped] == ["allow_managed_hooks_only"]
    assert run(s).reason == BLOCKED.format("system json says no")  # declared first of those
    assert sorted(c["name"] for c in s.calls()) == ["m1", "s1", "sj"]
    assert admin_hooks(None, "m", system_dir=str(s.etc)).hooks.hooks == hooks.hooks


def test_a_system_hooks_json_alone_reaches_other_agents(tmp_path: Path) -> None:
    s = Setup(tmp_path)
    hooks_json(s.etc, s, ["sj"])
    admin = admin_hooks(None, "m", system_dir=str(s.etc))
    assert admin is not None and [h.source for h in admin.hooks.hooks] == ["system"]


def test_a_trusted_projects_hooks_run_after_the_users(tmp_path: Path) -> None:
    s = Setup(tmp_path, {"u1:PreToolUse": deny("user says no"),
                         "p1:PreToolUse": deny("project json says no"),
                         "p2:PreToolUse": deny("project toml says no")})  # fmt: skip
    trust_project(s)
    dot = s.ws / ".codex"
    trust(s, hooks_json(dot, s, ["p1"]), ["p1"])
    trust(s, config_hooks(dot / "config.toml", s, ["p2"]), ["p2"])
    s.user_json([("PreToolUse", "Bash", "u1", None)])
    assert [(h.source, Path(h.path).name) for h in found(s).hooks] == [
        ("user", "hooks.json"), ("project", "hooks.json"), ("project", "config.toml")]
    assert run(s).reason == BLOCKED.format("user says no")
    assert sorted(c["name"] for c in s.calls()) == ["p1", "p2", "u1"]


@pytest.mark.parametrize("setup", ["untrusted project", "hook not trusted", "self-trusted",
                                   "disabled"])
def test_project_hooks_codex_does_not_run(tmp_path: Path, setup: str) -> None:
    s = Setup(tmp_path, {"p1:PreToolUse": deny("project json says no")})
    dot = s.ws / ".codex"
    declared = hooks_json(dot, s, ["p1"])
    if setup != "untrusted project":
        trust_project(s)
    if setup == "self-trusted":  # the project's own config.toml cannot trust its hooks
        config = dot / "config.toml"
        key = f"{declared}:pre_tool_use:0:0"
        value = trust_hash("PreToolUse", "Bash", s.command("p1"), None)
        config.write_text(f"[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(value)}\n")
    elif setup == "disabled":
        trust(s, declared, ["p1"], extra="enabled = false")
    elif setup == "untrusted project":
        trust(s, declared, ["p1"])
    assert run(s).status is Status.COMPLETED
    assert s.calls() == []


def test_an_async_hook_runs_and_its_refusal_is_ignored(tmp_path: Path) -> None:
    s = Setup(tmp_path, {"a1:PreToolUse": deny("async says no")})
    declared = hooks_json(s.home, s, ["a1"], is_async=True)
    trust(s, declared, ["a1"], is_async=False)  # async is part of the identity: not trusted
    assert run(s).status is Status.COMPLETED and s.calls() == []
    (s.home / "config.toml").unlink()
    trust(s, declared, ["a1"], is_async=True)
    hooks = found(s)
    assert hooks.for_event("PreToolUse") == () and len(hooks.detached("PreToolUse")) == 1
    assert run(s).status is Status.COMPLETED
    for _ in range(100):  # detached: it finishes on its own time
        if s.calls():
            break
        time.sleep(0.05)
    assert [c["stdin"]["tool_input"] for c in s.calls()] == [{"command": "pwd"}]


@pytest.mark.parametrize(("text", "message", "where"), [
    ('{"hooks": {"PreToolUse": [\n  {"matcher": "Bash",, }]}}', "failed to parse hooks config",
     (2, 22)),
    ('{"hooks": {"PreToolUse": {"matcher": "Bash"}}}', "`PreToolUse` must be a list", (1, 12)),
    ('{"hooks": {"PreToolUse": [{"hooks": [{"command": "x", "timeout": "5"}]}]}}',
     "`timeout` must be a whole number", (1, 55)),
])  # fmt: skip
def test_a_broken_hooks_file_is_an_error_not_no_hooks(tmp_path: Path, text: str, message: str,
                                                       where: tuple[int, int]) -> None:  # fmt: skip
    """Codex warns and runs without the file's hooks; ShellGate stops, naming the place."""
    s = Setup(tmp_path)
    (s.home / "hooks.json").write_text(text)
    with pytest.raises(ConfigError) as err:
        run(s)
    assert message in err.value.message
    assert (err.value.path, err.value.line, err.value.column) == (
        str(s.home / "hooks.json"), *where)


def test_a_broken_hooks_table_in_config_toml_is_an_error(tmp_path: Path) -> None:
    s = Setup(tmp_path)
    (s.home / "config.toml").write_text('model = "x"\n[hooks]\nPreToolUse = "Bash"\n')
    with pytest.raises(ConfigError) as err:
        run(s)
    assert "`PreToolUse` must be a list" in err.value.message
    assert (err.value.line, err.value.column) == (3, 1)


def test_a_trusted_hook_with_a_bad_matcher_is_an_error_an_untrusted_one_is_skipped(
    tmp_path: Path,
) -> None:
    s = Setup(tmp_path)
    s.user_toml([("PreToolUse", "(?!x)", "u1", None)], trusted=False)
    assert run(s).status is Status.COMPLETED
    s.user_toml([("PreToolUse", "(?!x)", "u1", None)], trusted=True)
    with pytest.raises(ConfigError) as err:
        run(s)
    assert 'invalid matcher "(?!x)"' in err.value.message and err.value.line == 2


HOOK_CMD = ("/root/.pyenv/versions/3.11.7/bin/python3 /root/.cache/hookscope/hook.py "
            "/root/.cache/hookscope/runs/out3/hs-status-list-{}/ctl.json u1")


@pytest.mark.parametrize(("version", "status_hash", "async_hash"), [
    ("169", "6e0af99aac6f0dd7390de9ea48380af71767a311c2a41b148202c94bc65ceffe",
     "9424e6bf1a2658cb2810193d8033f9ee1a2779fccbb275adfe30d54bf9c466e6"),
    ("171", "2f4c1e0a9185f00eab24e4d6c552e14a288baeaca0933405a508b89030acc16b",
     "79173cee21b447c2dda69fba26841ad58cfea67b35fb8e12742d236cd39dde41"),
])  # fmt: skip
def test_the_trust_hash_covers_async_and_status_message(version: str, status_hash: str,
                                                        async_hash: str) -> None:  # fmt: skip
    """`currentHash` of Codex's app-server `hooks/list` for two hooks.json handlers (recorded
    with each version): PreToolUse `Bash` with `timeout = 7` and `statusMessage`, and an
    `async` PostToolUse without a matcher."""
    command = HOOK_CMD.format(version)
    pre = trust_hash("PreToolUse", "Bash", command, 7, False, "checking")
    assert pre == "sha256:" + status_hash
    assert trust_hash("PostToolUse", None, command, None, True) == "sha256:" + async_hash


def test_shellgate_run_runs_the_projects_hooks_and_project_names_it(tmp_path: Path) -> None:
    """`shellgate run` (the real CLI): a trusted project's hook refuses; `--project DIR`
    trusts DIR for its hooks as for its rules (the hook still needs its trust entry)."""
    s = Setup(tmp_path, {"p1:PreToolUse": deny("project says no")})
    trust(s, hooks_json(s.ws / ".codex", s, ["p1"]), ["p1"])
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CODEX_HOME": str(s.home),
           "XDG_RUNTIME_DIR": str(tmp_path)}
    argv = [sys.executable, "-m", "shellgate", "run", "--sandbox", "danger-full-access"]

    def shellgate_run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*argv, *extra, "--", "pwd"], cwd=s.ws, env=env, text=True,
                              capture_output=True, timeout=60)  # fmt: skip

    assert shellgate_run().returncode == 0 and s.calls() == []  # the project is not trusted
    refused = shellgate_run("--project", str(s.ws))
    assert refused.returncode == 121, refused.stderr
    assert BLOCKED.format("project says no") in refused.stderr
    trust_project(s)
    assert BLOCKED.format("project says no") in shellgate_run().stderr


def test_a_zero_timeout_is_one_second() -> None:
    """hooks/list of both versions: `timeout = 0` is `timeoutSec` 1, and so is its hash."""
    assert trust_hash("PreToolUse", "Bash", "true", 0) == (
        "sha256:c3c2f7f1d5c57f7159c7c8b74aa4a1f4246a17d61039b39b8b271fab54fdbeb1")


def test_under_managed_hooks_only_a_broken_user_hooks_file_stops_nothing(tmp_path: Path) -> None:
    """Codex does not read the user's hooks then; neither does an error in them stop a run."""
    s = Setup(tmp_path, {"m1:PreToolUse": deny("managed m1 says no")})
    requirements(s, managed_group(s, "m1"))
    (s.home / "hooks.json").write_text("{not json")
    with pytest.raises(ConfigError):
        run(s)
    (s.etc / "requirements.toml").write_text("allow_managed_hooks_only = true\n"
                                             + (s.etc / "requirements.toml").read_text())
    assert run(s).reason == BLOCKED.format("managed m1 says no")
