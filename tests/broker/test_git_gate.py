"""What git runs, judged by the gate (`broker.decide`, the path of every hook and of the MCP
`shell` tool), with a real rules file: `rm` forbidden alone, and with `git` allowed by name as
users do for a tool they take for read-only. Every spelling of issue 24's git list (and the
other ways of giving git configuration) is refused when literal and asked when decided at run
time; ordinary git commands are answered as before, with the user's own git configuration
(a pager, plain aliases, an LFS filter) in a temporary HOME."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shellgate.broker.decide import decide
from shellgate.broker.protocol import AgentRequest

from .conftest import World

RM_ONLY = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
WITH_GIT = RM_ONLY + 'prefix_rule(pattern=["git"], decision="allow")\n'

RM = "'rm -rf build #'"
LITERAL = [
    "git -c alias.x='!rm -rf build' x",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf build' git x",
    f"git -c core.sshCommand={RM} ls-remote ssh://h/r",
    f"GIT_SSH_COMMAND={RM} git ls-remote ssh://h/r",
    f"git -c core.fsmonitor={RM} status",
    f"GIT_EXTERNAL_DIFF={RM} git diff",
    f"git -c core.editor={RM} commit",
    f"EDITOR={RM} git commit",
    "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% build'",
    "GIT_CONFIG_PARAMETERS=\"'alias.x'='!rm -rf build'\" git x",
    "A='!rm -rf build' git --config-env=alias.x=A x",
    "git -c alias.x=\"-c alias.y='!rm -rf build' y\" x",
    "git -c alias.x='!rm' x -rf build",
    "git config alias.z '!rm -rf build' && git z",
    f"git clone -u {RM} . d",
    f"git -c diff.t.textconv={RM} diff",
    f"git -c filter.t.clean={RM} add f",
    f"git ls-remote --upload-pack={RM} .",
    "git rebase -x 'rm -rf build' HEAD~1",
    f"GIT_SEQUENCE_EDITOR={RM} git rebase -i HEAD~1",
    "git -c gpg.program=rm commit -S -m x",
    "git -c credential.helper='!rm -rf build #' fetch",
    "git bisect run rm -rf build",
    "git submodule foreach 'rm -rf build'",
    "export GIT_PAGER='rm -rf build'; git log",
    "env GIT_SSH_COMMAND='rm -rf build' git fetch",
    "git -C . -c alias.x='!rm -rf build' x",
    "git fromrepo",  # an alias in the repository's .git/config
    "git fromhome",  # an alias in ~/.gitconfig
]
RUN_TIME = [
    "git -c core.hooksPath=./hooks commit -m x",
    "GIT_EXEC_PATH=./bin git status",
    "git --exec-path=./bin status",
    "GIT_CONFIG_GLOBAL=./g git status",
    "git -c include.path=./more.cfg status",
    "git init --template=./t new",
    'git -c "alias.x=$A" x',
    'GIT_SSH_COMMAND="$S" git fetch',
    'git rebase -x "$CMD" HEAD~1',
]
ORDINARY = [
    "git status",
    "git log --oneline",
    "git -c color.ui=always log",
    "git -C sub status",
    "git lg -5",  # the user's plain alias
    "git diff --stat",
    "GIT_EDITOR=true git rebase --continue",  # what agents set so that git waits on no one
    "GIT_PAGER=cat git log -3",
    "git -c core.editor=true commit --amend",
]


@pytest.fixture
def place(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A HOME with git configuration of an ordinary user (and one alias running rm), a project
    that is a repository with an alias running rm in its config."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_DIR", raising=False)
    (world.project / ".git").rmdir()
    (world.project / "sub").mkdir()
    script = """set -e
    git init -q .
    git config alias.fromrepo '!rm -rf build'
    git config --global core.pager less
    git config --global alias.lg 'log --oneline'
    git config --global filter.lfs.clean 'git-lfs clean -- %f'
    git config --global diff.lfs.textconv cat
    git config --global alias.fromhome '!rm -rf build'
    """
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", script], cwd=world.project, env=env, check=True)
    return world


def _ask(world: World, rules: str, command: str) -> tuple[str, str, bool, dict[str, object]]:
    (world.home / "rules" / "default.rules").write_text(rules)
    d = decide(AgentRequest("claude-code", "s", str(world.project), command))
    return d.decision, d.reason or "", d.hidden, dict(d.explain or {})


@pytest.mark.parametrize("rules", [RM_ONLY, WITH_GIT], ids=["rm-forbidden", "git-allowed-too"])
@pytest.mark.parametrize("command", LITERAL)
def test_a_literal_command_git_runs_is_refused(place: World, rules: str, command: str) -> None:
    decision, reason, hidden, _ = _ask(place, rules, command)
    assert decision == "forbidden" and hidden, (command, reason)
    assert reason.startswith("git runs `") and "no rm" in reason, reason


@pytest.mark.parametrize("rules", [RM_ONLY, WITH_GIT], ids=["rm-forbidden", "git-allowed-too"])
@pytest.mark.parametrize("command", RUN_TIME)
def test_what_git_runs_from_a_file_or_a_run_time_value_is_asked(
    place: World, rules: str, command: str
) -> None:
    decision, reason, hidden, _ = _ask(place, rules, command)
    assert decision == "prompt" and hidden, (command, reason)
    assert reason.startswith("bash decides this command at run time"), reason


def test_the_reason_names_git_and_how(place: World) -> None:
    _, reason, _, _ = _ask(place, RM_ONLY, "git -c alias.x='!rm -rf build' x")
    assert reason.startswith("git runs `rm -rf build` (alias `x`, set by -c)"), reason
    _, reason, _, _ = _ask(place, RM_ONLY, f"GIT_SSH_COMMAND={RM} git fetch")
    assert "(core.sshCommand, from GIT_SSH_COMMAND)" in reason, reason
    _, reason, _, _ = _ask(place, RM_ONLY, "git fromrepo")
    config = place.project / ".git" / "config"
    line = config.read_text().splitlines().index("\tfromrepo = !rm -rf build") + 1
    assert f"(alias `fromrepo`, from {config}:{line})" in reason, reason


@pytest.mark.parametrize("rules", [RM_ONLY, WITH_GIT], ids=["rm-forbidden", "git-allowed-too"])
@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_git_commands_are_answered_as_before(
    place: World, rules: str, command: str
) -> None:
    """The user's pager, LFS filter and plain alias cost no question and, with git allowed,
    do not move the command into the sandbox."""
    decision, reason, hidden, explain = _ask(place, rules, command)
    assert not hidden and "gate" not in explain, (command, reason, explain.get("gate"))
    if rules == WITH_GIT:
        assert decision == "allow"


@pytest.mark.parametrize("policy", ["untrusted", "on-request", "never"])
def test_a_users_git_configuration_costs_no_question_under_any_policy(
    place: World, policy: str
) -> None:
    """Under `untrusted` Codex asks about every command no allow rule covers; a user's pager
    or LFS filter from ~/.gitconfig is not one more question for an allowed `git status` (a
    rule or the danger check still counts: `git fromhome` is refused)."""
    (place.home / "rules" / "default.rules").write_text(WITH_GIT)
    for command in ("git status", "git lg", "git log -3"):
        d = decide(AgentRequest("claude-code", "s", str(place.project), command,
                                approval_policy=policy))  # fmt: skip
        assert d.decision == "allow" and not d.hidden, (command, d.reason)
    d = decide(AgentRequest("claude-code", "s", str(place.project), "git fromhome",
                            approval_policy=policy))  # fmt: skip
    assert d.decision == "forbidden", d.reason
