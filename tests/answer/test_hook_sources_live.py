"""The real Codex (0.169.0 and 0.171.0, offline) as the oracle for where hooks come from, on the
same set-ups as ShellGate (docs/answerers.md "observed"): `managed_dir` naming a folder that
does not exist or holds a hooks.json, managed hooks Codex cannot load, the system folder's
hooks.json and config.toml, a trusted project's `.codex/hooks.json` (trusted by the user, or
only by itself), the user's hook declared before the project's, `enabled = false`, an `async`
hook that refuses. `/etc/codex` is a scratch folder
bound over it in a private user + mount + network namespace (tests/etc_overlay.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from codexrun import SCRIPT, told
from hookenv import Setup
from hooklayers import deny, hooks_json, run, trust, trust_project
from reviewenv import STANDIN

import realtools
from etc_overlay import etc_overlay_argv
from shellgate.codexconfig.hook_trust import trust_hash
from shellgate.codexconfig.requirements import RequirementsError
from shellgate.exec.orchestrator import Status

pytestmark = pytest.mark.skipif(
    subprocess.run(["unshare", "-rmn", "true"], capture_output=True).returncode != 0,
    reason="no user + mount + network namespaces here")
BLOCKED = "Command blocked by PreToolUse hook: {}. Command: pwd"
UNLOADABLE = "failed to load required managed hooks: "


def codex_run(version: str, s: Setup, *then: str) -> tuple[list[str], str]:
    """`codex exec` runs `pwd` (approval never, no sandbox), then `then`; what its model was
    told of them, and its stderr."""
    codex = realtools.codex(version)
    out = s.root / "out"
    out.mkdir()
    calls = [{"tool": "<auto>", "command": c} for c in ("pwd", *then)]
    (out / "main.json").write_text(json.dumps([*calls, {"text": "done"}]))
    (out / "review.json").write_text("[]")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(out), "OUT": str(out),
           "WS": str(s.ws), "CODEX": str(codex), "CODEX_HOME": str(s.home),
           "STANDIN": str(STANDIN), "PY": sys.executable, "PROMPT": "run pwd"}
    script = ["bash", "-c", SCRIPT, "bash", "-s", "danger-full-access"]
    argv = etc_overlay_argv(s.root / "scratch", {"codex": s.etc}, script, net=True)
    subprocess.run(argv, env=env, timeout=150, check=False)
    log = out / "requests.jsonl"
    requests: list[dict[str, Any]] = ([json.loads(line) for line in log.read_text().splitlines()]
                                      if log.exists() else [])  # fmt: skip
    main = [r for r in requests if r["role"] == "main"]
    return (told(requests) if main else []), (out / "stderr.txt").read_text()


def ran(said: list[str]) -> bool:
    return len(said) == 1 and "Process exited with code 0" in said[0]


def setups(s: Setup, name: str) -> None:
    """Each set-up, written for both Codex and ShellGate."""
    group = (f'[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\n'
             f'type = "command"\ncommand = {json.dumps(s.command("m1"))}\n')
    if name == "managed-dir-missing":
        (s.etc / "requirements.toml").write_text(
            f'[hooks]\nmanaged_dir = "/nonexistent/hooks"\n{group}')
    elif name == "managed-bad-matcher":
        (s.etc / "requirements.toml").write_text("[hooks]\n" + group.replace('"Bash"', '"["'))
    elif name == "managed-prompt-hook":
        (s.etc / "requirements.toml").write_text(
            '[hooks]\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "prompt"\n')
    elif name == "managed-dir-json-unread":  # a hooks.json in managed_dir: Codex reads none
        (s.etc / "requirements.toml").write_text('[hooks]\nmanaged_dir = "/etc/codex/d"\n')
        hooks_json(s.etc / "d", s, ["m1"])
    elif name == "system-hooks-json":
        hooks_json(s.etc, s, ["m1"])
    elif name == "system-config-toml":
        (s.etc / "config.toml").write_text(group)
    elif name == "user-before-project":  # both refuse: the model reads the user's reason
        trust_project(s)
        trust(s, hooks_json(s.ws / ".codex", s, ["p1"]), ["p1"])
        trust(s, hooks_json(s.home, s, ["m1"]), ["m1"])
    elif name == "user-disabled":
        trust(s, hooks_json(s.home, s, ["m1"]), ["m1"], extra="enabled = false")
    elif name == "project-self-trusted":  # trust written in the project's own config.toml
        trust_project(s)
        declared = hooks_json(s.ws / ".codex", s, ["m1"])
        value = trust_hash("PreToolUse", "Bash", s.command("m1"), None)
        (s.ws / ".codex" / "config.toml").write_text(
            f"[hooks.state.{json.dumps(f'{declared}:pre_tool_use:0:0')}]\n"
            f"trusted_hash = {json.dumps(value)}\n")
    elif name == "project-hooks-json":
        trust_project(s)
        trust(s, hooks_json(s.ws / ".codex", s, ["m1"]), ["m1"])
    elif name == "async-user-hook":
        trust(s, hooks_json(s.home, s, ["m1"], is_async=True), ["m1"], is_async=True)


CASES = ["managed-dir-missing", "managed-bad-matcher", "managed-prompt-hook",
         "managed-dir-json-unread", "system-hooks-json", "system-config-toml",
         "project-hooks-json", "project-self-trusted", "user-before-project", "user-disabled",
         "async-user-hook"]
# no hook runs: `pwd` does
NOT_RUN = ("managed-dir-json-unread", "project-self-trusted", "user-disabled")


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
@pytest.mark.parametrize("name", CASES)
def test_where_hooks_come_from_as_codex(tmp_path: Path, version: str, name: str) -> None:
    behaviour = {"m1:PreToolUse": deny("hook m1 says no"), "p1:PreToolUse": deny("hook p1 says no")}
    theirs = Setup(tmp_path / "codex", dict(behaviour))
    setups(theirs, name)
    # an async hook is not waited for: Codex ends the session (and its detached hooks) when
    # the turn ends, so the turn outlives it by one more command
    then = ("sleep 0.5",) if name == "async-user-hook" else ()
    codex_said, stderr = codex_run(version, theirs, *then)
    mine = Setup(tmp_path / "sg", dict(behaviour))
    setups(mine, name)
    if name == "managed-bad-matcher":  # Codex does not start; nor does ShellGate
        assert codex_said == [] and UNLOADABLE + 'invalid matcher "[" in ' \
            "/etc/codex/requirements.toml: regex parse error" in stderr, stderr
        with pytest.raises(RequirementsError) as err:
            run(mine)
        assert err.value.message.startswith(
            f'{UNLOADABLE}invalid matcher "[" in {mine.etc / "requirements.toml"}: regex parse '
            "error")  # fmt: skip
        return
    if name == "managed-prompt-hook":
        assert codex_said == [] and UNLOADABLE + "skipping prompt hook in " \
            "/etc/codex/requirements.toml: prompt hooks are not supported yet" in stderr, stderr
        with pytest.raises(RequirementsError) as err:
            run(mine)
        assert err.value.message.startswith(f"{UNLOADABLE}skipping prompt hook in ")
        return
    result = run(mine)
    if name in NOT_RUN:
        assert ran(codex_said), codex_said
        assert result.status is Status.COMPLETED
        assert theirs.calls() == mine.calls() == []
        return
    if name == "async-user-hook":  # it ran, and its refusal changed nothing
        assert ran(codex_said[:1]), codex_said
        assert result.status is Status.COMPLETED
        commands = [c["stdin"]["tool_input"]["command"] for c in theirs.calls()]
        assert "pwd" in commands, commands
        return
    assert codex_said == [BLOCKED.format("hook m1 says no")] == [result.reason]
    names = ["m1", "p1"] if name == "user-before-project" else ["m1"]
    assert sorted(c["name"] for c in theirs.calls()) == sorted(c["name"] for c in mine.calls()) \
        == names
