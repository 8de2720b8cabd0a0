"""git's configuration files read as git reads them (`shell.programs.git_files`): real files,
written by `git config` itself in a temporary HOME and repository, compared with git's own
reading (`git config --list -z --show-origin`), and the keys git.read finds there."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.shell.programs import git_files
from shellgate.shell.programs.git import read
from shellgate.shell.programs.git_files import GitConfigFiles, config_paths
from shellgate.shell.programs.git_format import parse_config

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"],
            "XDG_CONFIG_HOME": str(home / ".config")}  # fmt: skip


def _git(home: Path, *args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd or home, env=_env(home), check=True,
                          capture_output=True, text=True)  # fmt: skip
    return done.stdout


def _gits_reading(home: Path, cwd: Path) -> list[tuple[str, str, str]]:
    """git's own list: (file, key, value) in its order (a bare key's value as `true`)."""
    out = []
    raw = _git(home, "config", "--list", "-z", "--show-origin", cwd=cwd).split("\0")
    for origin, pair in zip(raw[0::2], raw[1::2], strict=False):
        key, _, value = pair.partition("\n")
        path = origin.removeprefix("file:")
        path = str((cwd / path).resolve()) if not os.path.isabs(path) else path
        out.append((path, key, value if "\n" in pair else "true"))
    return out


def _ours(home: Path, cwd: Path, **kw: object) -> list[tuple[str, str, str]]:
    files = git_files.git_files(str(cwd), _env(home))
    if kw:
        files = files.at(**kw)  # type: ignore[arg-type]
    return [(str(Path(o.rpartition(":")[0]).resolve()), k, v)
            for (k, v), o in zip(files.items(), files.origins(), strict=True)]  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def repo(home: Path) -> Path:
    _git(home, "init", "-q", "repo")
    return home / "repo"


AWKWARD = [
    ("alias.x", "!rm -rf build"),
    ("alias.lg", "log --oneline"),
    ("alias.q", 'say "hi there"; a\\b # not a comment ; nor this'),
    ("alias.t", "\ttabbed  spaced  "),
    ("core.pager", "less -R"),
    ("diff.my driver.textconv", 'sh -c "cat \\"$1\\"" --'),
    ("filter.lfs.clean", "git-lfs clean -- %f"),
    ("sendemail.Work.toCmd", "./who.sh"),
    ("credential.https://h.example/x.helper", "!f() { echo x; }; f"),
]


def test_the_reading_is_gits_on_files_git_wrote(home: Path, repo: Path) -> None:
    for key, value in AWKWARD:
        _git(home, "config", key, value, cwd=repo)
    _git(home, "config", "--global", "alias.g", "!echo global")
    _git(home, "config", "--global", "core.editor", "vim")
    (home / ".config" / "git").mkdir(parents=True)
    _git(home, "config", "--file", str(home / ".config/git/config"), "alias.xdg", "!echo xdg")
    assert _ours(home, repo) == _gits_reading(home, repo)
    assert ("alias.q", 'say "hi there"; a\\b # not a comment ; nor this') in [
        (k, v) for _, k, v in _ours(home, repo)
    ]


def test_includes_and_conditional_includes(home: Path, repo: Path) -> None:
    (home / "inc.cfg").write_text(
        '[alias]\n\tfrominc = "!echo inc"\n[core]\n\tsshCommand = ssh -v\n'
    )
    (home / "cond.cfg").write_text("[alias]\n\tfromcond = !echo cond\n")
    _git(home, "config", "--global", "include.path", "inc.cfg")  # relative to the file
    _git(home, "config", "--global", f"includeIf.gitdir:{repo}/.path", str(home / "cond.cfg"))
    assert _ours(home, repo) == _gits_reading(home, repo)
    keys = [k for _, k, _ in _ours(home, repo)]
    assert "alias.frominc" in keys and "alias.fromcond" in keys
    # a condition git finds false is still followed: more keys judged, never fewer
    outside = home / "elsewhere"
    outside.mkdir()
    assert "alias.fromcond" in [k for _, k, _ in _ours(home, outside)]


def test_the_repository_is_found_from_cwd_C_and_git_dir(home: Path, repo: Path) -> None:
    _git(home, "config", "alias.here", "!echo here", cwd=repo)
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    assert "alias.here" in [k for _, k, _ in _ours(home, sub)]
    assert "alias.here" in [k for _, k, _ in _ours(home, home, chdirs=("repo", "a"), git_dir=None)]
    assert "alias.here" in [k for _, k, _ in _ours(home, home, chdirs=(), git_dir="repo/.git")]
    assert "alias.here" not in [k for _, k, _ in _ours(home, home)]


def test_a_worktree_reads_the_common_config_and_its_own(home: Path, repo: Path) -> None:
    _git(home, "-c", "user.name=u", "-c", "user.email=e", "commit", "-q", "--allow-empty", "-m",
         "x", cwd=repo)  # fmt: skip
    _git(home, "worktree", "add", "-q", str(home / "wt"), cwd=repo)
    _git(home, "config", "alias.common", "!echo common", cwd=repo)
    _git(home, "config", "extensions.worktreeConfig", "true", cwd=repo)
    _git(home, "config", "--worktree", "alias.mine", "!echo mine", cwd=home / "wt")
    wt = home / "wt"
    assert _ours(home, wt) == _gits_reading(home, wt)
    assert {"alias.common", "alias.mine"} <= {k for _, k, _ in _ours(home, wt)}


def test_a_gitfile_repository(home: Path) -> None:
    _git(home, "init", "-q", "--separate-git-dir", str(home / "store.git"), "sep")
    _git(home, "config", "alias.sep", "!echo sep", cwd=home / "sep")
    assert _ours(home, home / "sep") == _gits_reading(home, home / "sep")


def test_the_gates_environment_names_the_files(home: Path, tmp_path: Path) -> None:
    files = GitConfigFiles(str(tmp_path), (("HOME", str(home)),))
    assert config_paths(files)[:3] == ["/etc/gitconfig", f"{home}/.config/git/config",
                                       f"{home}/.gitconfig"]  # fmt: skip
    env = (("HOME", str(home)), ("GIT_CONFIG_GLOBAL", "/g"), ("GIT_CONFIG_SYSTEM", "/s"))
    assert config_paths(GitConfigFiles(str(tmp_path), env))[:2] == ["/s", "/g"]
    env = (("HOME", str(home)), ("GIT_CONFIG_NOSYSTEM", "true"), ("XDG_CONFIG_HOME", "/x"))
    paths = config_paths(GitConfigFiles(str(tmp_path), env))
    assert paths[:2] == ["/x/git/config", f"{home}/.gitconfig"]


def test_nothing_is_read_before_items_and_a_changed_file_is_read_again(
    home: Path, repo: Path
) -> None:
    files = git_files.git_files(str(repo), _env(home))
    git_files._parsed.cache_clear()
    _git(home, "config", "alias.v", "!echo one", cwd=repo)
    assert git_files._parsed.cache_info().currsize == 0
    assert ("alias.v", "!echo one") in files.items()
    config = repo / ".git" / "config"
    _git(home, "config", "alias.v", "!echo two-longer", cwd=repo)
    os.utime(config, ns=(1, 1))
    again = git_files.git_files(str(repo), _env(home))
    assert ("alias.v", "!echo two-longer") in again.items()


def test_lines_git_rejects() -> None:
    assert parse_config('[core]\n\tpager = "less\n', "/f")[-1] == ("?", "", "/f:2")
    assert parse_config("[core\n", "/f") == (("?", "", "/f:1"),)
    assert parse_config("pager = less\n", "/f") == (("?", "", "/f:1"),)
    assert parse_config("[a]\nx = \\q\n", "/f") == (("?", "", "/f:2"),)
    ok = parse_config('\ufeff[a "B.c"] k = v\\\n w ; c\n[D.E]\nK\n', "/f")
    assert ok == (("a.B.c.k", "v w", "/f:1"), ("d.e.k", "true", "/f:4"))


def test_git_read_finds_keys_in_files(home: Path, repo: Path) -> None:
    _git(home, "config", "alias.x", "!rm -rf build", cwd=repo)
    _git(home, "config", "--global", "alias.lg", "log --oneline")
    _git(home, "config", "--global", "core.hooksPath", "./hooks")
    files = git_files.git_files(str(repo), _env(home))
    config = repo / ".git" / "config"
    line = config.read_text().splitlines().index("\tx = !rm -rf build") + 1
    handed = read(("git", "x"), frozenset(), {}, files)
    assert [(h.how, h.shell) for h in handed] == [
        (f"alias `x`, from {config}:{line}", "rm -rf build")
    ]
    (lg,) = read(("git", "lg"), frozenset(), {}, files)
    assert lg.argv == ("git", "log", "--oneline")
    assert read(("git", "status"), frozenset(), {}, files) == ()
    # `git -C repo x` from elsewhere reads that repository
    elsewhere = git_files.git_files(str(home), _env(home))
    assert read(("git", "x"), frozenset(), {}, elsewhere) == ()
    (moved,) = read(("git", "-C", "repo", "x"), frozenset(), {}, elsewhere)
    assert moved.shell == "rm -rf build"
