"""Ground truth for git's family: each spelling runs in real bash with real git, in a fresh
repository in a temporary HOME, with a logging stub for `rm` first in PATH; it counts only when
the stub ran. Then git's reader (`programs.git.read`, with the files of that HOME and
repository) must hand over a command that runs `rm`.

The words and environment each git command gets are taken from the script with shlex
(assignments before `git`, `&&` between commands): the spellings are written so that this is
what bash does too."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.approval.beyond import gate_requirement
from shellgate.approval.context import ExecContext
from shellgate.approval.requirement import Forbidden
from shellgate.rules.loader import load_policy
from shellgate.shell.bash_runs import argv_runs, bash_runs
from shellgate.shell.programs import git_files
from shellgate.shell.programs.git import read
from shellgate.shell.programs.handed import Handed

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("bash") is None, reason="needs git and bash"
)

RM = "'rm -rf build #'"
SPELLINGS = [
    # issue 24's list
    "git -c alias.x='!rm -rf build' x",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf build' git x",
    f"git -c core.sshCommand={RM} ls-remote ssh://h/r",
    f"GIT_SSH_COMMAND={RM} git ls-remote ssh://h/r",
    f"git -c core.fsmonitor={RM} status",
    f"GIT_EXTERNAL_DIFF={RM} git diff",
    f"git -c core.editor={RM} commit",
    f"EDITOR={RM} git commit",
    "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% build'",
    # the other ways of giving configuration
    "GIT_CONFIG_PARAMETERS=\"'alias.x'='!rm -rf build'\" git x",
    "A='!rm -rf build' git --config-env=alias.x=A x",
    "git -c alias.x=\"-c alias.y='!rm -rf build' y\" x",
    "git -c alias.x='!rm' x -rf build",
    "git config alias.z '!rm -rf build' && git z",
    "git clone -q --no-local -u 'rm -rf build #' . d",
    # keys and options
    f"git -c diff.t.textconv={RM} diff",
    f"git -c filter.t.clean={RM} add f",
    f"git ls-remote --upload-pack={RM} .",
    f"git fetch --upload-pack={RM} .",
    f"git -c remote.here.uploadpack={RM} fetch here",
    "git stash -q && git rebase -x 'rm -rf build' HEAD~1",
    f"git stash -q && git -c sequence.editor={RM} rebase -i HEAD~1",
    f"git stash -q && GIT_SEQUENCE_EDITOR={RM} git rebase -i HEAD~1",
    "git -c gpg.program=rm commit -q -S -m signed",
    "git -c credential.helper='!rm -rf build #' -c credential.interactive=never "
    "credential fill <<< $'protocol=https\\nhost=h\\n'",
    "git bisect start HEAD HEAD~1 && git bisect run rm -rf build",
    # from git's configuration files (written before the command by the fixture)
    "git fromrepo",
    "git fromhome",
]
# written by the script itself before git reads it (programs.files -> git.read_written)
WRITTEN = [
    "printf '[alias]\\n\\tw = !rm -rf build\\n' >> .git/config && git w",
    "echo '[core]' > ~/.gitconfig; echo '  fsmonitor = rm -rf build #' >> ~/.gitconfig; git status",
]

_STUB = """#!/bin/sh
printf '%s\\n' "rm $*" >> "$STUB_LOG"
"""


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A HOME with an alias, a repository with two commits, an alias in its config, a remote,
    attributes naming drivers `t`, a modified file and a staged one; a stub `rm` in PATH."""
    home, stubs = tmp_path / "home", tmp_path / "stubs"
    home.mkdir()
    stubs.mkdir()
    (stubs / "rm").write_text(_STUB)
    (stubs / "rm").chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{stubs}:/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1",
           "STUB_LOG": str(tmp_path / "log"), "GIT_TERMINAL_PROMPT": "0", "LANG": "C",
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@e", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@e"}  # fmt: skip
    repo = home / "repo"
    setup = f"""set -e
    git init -q {repo} && cd {repo}
    echo a > f && echo '* diff=t filter=t' > .gitattributes && mkdir build && touch build/x
    git add f .gitattributes && git commit -qm one && echo b >> f && git commit -qam two
    echo c >> f && echo new > g && git add g
    git config alias.fromrepo '!rm -rf build' && git remote add here .
    git config --global alias.fromhome '!rm -rf build'
    """
    subprocess.run(["bash", "-c", setup], env=env, check=True, capture_output=True)
    return repo, env


def _commands(script: str) -> list[tuple[tuple[str, ...], dict[str, str]]]:
    """Each git command of the script: its words and its assignments."""
    out = []
    for part in script.split(" && "):
        words = shlex.split(part.split(" <<< ")[0])
        env = {}
        while "=" in words[0] and not words[0].startswith("-"):
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        out.append((tuple(words), env))
    return out


def _runs_rm(handed: tuple[Handed, ...]) -> bool:
    runs = []
    for h in handed:
        if h.shell is not None:
            runs += [r.words for r in bash_runs(h.shell)]
        if h.argv is not None:
            runs += [r.words for r in argv_runs(h.argv)]
            if h.argv[0] == "git":  # a plain alias: git's words again, read again
                return _runs_rm(read(h.argv, frozenset(), {}, None))
    return any(w and w[0].rpartition("/")[2] == "rm" for w in runs)


@pytest.mark.parametrize("script", WRITTEN)
def test_configuration_the_script_writes_runs_rm_and_the_gate_refuses_it(
    script: str, place: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, env = place
    (tmp_path / "r.rules").write_text('prefix_rule(pattern=["rm"], decision="forbidden")\n')
    policy = load_policy([tmp_path / "r.rules"])
    files = git_files.git_files(str(repo), env)  # read before the script runs, as the gate does
    got = gate_requirement(["bash", "-lc", script], ExecContext(), policy, git=files)
    assert isinstance(got, Forbidden) and "written into" in got.reason, got
    subprocess.run(["bash", "-c", script], cwd=repo, env=env, timeout=60, capture_output=True)
    assert Path(env["STUB_LOG"]).read_text().startswith("rm")


@pytest.mark.parametrize("script", SPELLINGS)
def test_bash_runs_rm_and_the_reader_hands_it_over(
    script: str, place: tuple[Path, dict[str, str]]
) -> None:
    repo, env = place
    done = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
    log = Path(env["STUB_LOG"])
    assert log.exists() and log.read_text().startswith("rm"), (done.stdout, done.stderr)
    files = git_files.git_files(str(repo), env)
    found = False
    for words, assigned in _commands(script):
        found = found or _runs_rm(read(words, frozenset(), assigned, files))
    assert found, script
