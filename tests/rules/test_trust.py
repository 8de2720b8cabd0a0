"""Project trust read from Codex's config.toml, on real folders (git repositories, worktrees)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shellgate.codexconfig.layers import LayerKind
from shellgate.codexconfig.resolve import codex_layers_for
from shellgate.codexconfig.trust import ConfigError, project_trust
from shellgate.rules.errors import RulesError


def _entry(key: Path | str, level: str = "trusted") -> str:
    return f'[projects."{key}"]\ntrust_level = "{level}"\n'


def _setup(tmp_path: Path, config: str, *nested: str, git: bool = True) -> tuple[Path, Path]:
    """(codex_home, cwd): a project `proj` (a git repository unless told) with a `.codex/rules`
    in its root and in each nested folder, cwd the deepest."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(config, encoding="utf-8")
    folder = tmp_path / "proj"
    folder.mkdir()
    if git:
        (folder / ".git").mkdir()
    for part in ("", *nested):
        folder = folder / part if part else folder
        (folder / ".codex" / "rules").mkdir(parents=True)
        (folder / ".codex" / "rules" / "p.rules").write_text(
            'prefix_rule(pattern=["touch"], decision="forbidden")\n'
        )
    return home, folder


def _project_folders(cwd: Path, home: Path) -> list[str]:
    layers, _ = codex_layers_for(cwd, codex_home=home)
    return [layer.folder or "" for layer in layers if layer.kind is LayerKind.PROJECT]


def test_trusted_project_loads_its_rules(tmp_path: Path) -> None:
    home, cwd = _setup(tmp_path, _entry(tmp_path / "proj"))
    trust = project_trust(cwd, codex_home=home)
    assert (trust.root, trust.status, trust.entry) == (cwd, "trusted", str(cwd))
    assert trust.loads_project_rules
    assert _project_folders(cwd, home) == [str(cwd / ".codex" / "rules")]
    assert "Codex loads this project's rules" in trust.describe()


@pytest.mark.parametrize(
    ("config", "status"),
    [
        pytest.param("", "unknown", id="absent"),
        pytest.param("{untrusted}", "untrusted", id="untrusted"),
        pytest.param('[projects."/elsewhere"]\ntrust_level = "trusted"\n', "unknown", id="other"),
        pytest.param("{slash}", "unknown", id="trailing-slash-is-another-key"),
        pytest.param('[projects."{proj}"]\n', "unknown", id="entry-without-level"),
    ],
)
def test_untrusted_or_unlisted_project_rules_are_ignored(
    tmp_path: Path, config: str, status: str
) -> None:
    proj = tmp_path / "proj"
    config = config.format(untrusted=_entry(proj, "untrusted"), slash=_entry(f"{proj}/"), proj=proj)
    home, cwd = _setup(tmp_path, config)
    trust = project_trust(cwd, codex_home=home)
    assert trust.status == status
    assert not trust.loads_project_rules
    assert _project_folders(cwd, home) == []
    assert trust.describe().startswith("Codex ignores this project's rules: the project is ")
    if status == "untrusted":
        assert "marked untrusted in Codex's config" in trust.describe()
    else:
        assert "not trusted in Codex's config" in trust.describe()


def test_nested_folders_each_take_their_own_entry_then_the_root(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    home, cwd = _setup(tmp_path, _entry(proj) + _entry(proj / "sub" / "deep", "untrusted"),
                       "sub", "deep")  # fmt: skip
    assert cwd == proj / "sub" / "deep"
    trust = project_trust(cwd, codex_home=home)
    assert [(f.folder, f.status, f.entry) for f in trust.folders] == [
        (proj, "trusted", str(proj)),
        (proj / "sub", "trusted", str(proj)),
        (cwd, "untrusted", str(cwd)),
    ]
    assert trust.status == "untrusted" and trust.loads_project_rules
    assert _project_folders(cwd, home) == [
        str(proj / ".codex/rules"), str(proj / "sub/.codex/rules"),
    ]  # fmt: skip
    assert "it ignores" in trust.describe()


def test_a_trusted_subfolder_loads_only_its_own_rules(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    home, cwd = _setup(tmp_path, _entry(proj / "sub"), "sub", "deep")
    assert _project_folders(cwd, home) == [str(proj / "sub/.codex/rules")]


def test_without_a_marker_the_cwd_is_the_root(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    home, cwd = _setup(tmp_path, _entry(proj), "sub", git=False)
    trust = project_trust(cwd, codex_home=home)
    assert trust.root == cwd and trust.status == "unknown"
    assert _project_folders(cwd, home) == []
    assert _project_folders(proj, home) == [str(proj / ".codex/rules")]


def test_project_root_markers_from_config(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    config = 'project_root_markers = ["ROOT"]\n' + _entry(proj / "sub")
    home, cwd = _setup(tmp_path, config, "sub", "deep")
    (proj / "sub" / "ROOT").write_text("")
    trust = project_trust(cwd, codex_home=home)
    assert trust.root == proj / "sub" and trust.status == "trusted"
    assert _project_folders(cwd, home) == [
        str(proj / "sub/.codex/rules"), str(cwd / ".codex/rules"),
    ]  # fmt: skip
    (home / "config.toml").write_text("project_root_markers = []\n" + _entry(proj))
    assert project_trust(cwd, codex_home=home).root == cwd


def test_a_worktree_takes_the_main_checkouts_entry(tmp_path: Path) -> None:
    main = tmp_path / "proj"
    home, _ = _setup(tmp_path, _entry(main))
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    (main / ".git").mkdir(exist_ok=True)
    run = ["git", "-C", str(main), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*run, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*run, "worktree", "add", "-q", str(tmp_path / "wt")], check=True)
    wt = tmp_path / "wt"
    (wt / ".codex" / "rules").mkdir(parents=True)
    trust = project_trust(wt, codex_home=home)
    assert (trust.root, trust.status, trust.entry) == (wt, "trusted", str(main))
    assert _project_folders(wt, home) == [str(wt / ".codex/rules")]


def test_codex_home_is_not_a_project_layer(tmp_path: Path) -> None:
    home = tmp_path / "proj" / ".codex"
    (home / "rules").mkdir(parents=True)
    (tmp_path / "proj" / ".git").mkdir()
    (home / "config.toml").write_text(_entry(tmp_path / "proj"))
    layers, trust = codex_layers_for(tmp_path / "proj", codex_home=home)
    assert trust.folders == () and [x.kind for x in layers] == [LayerKind.SYSTEM, LayerKind.USER]
    assert trust.describe().startswith("No project rules")


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        pytest.param(
            '[projects."/p"]\ntrust_level = "trusted"\nthis is = broken\n', 3, 6, id="syntax"
        ),
        pytest.param('[projects."/p"]\ntrust_level = "yes"\n', 2, 15, id="bad-level"),
        pytest.param("projects = 3\n", 1, 12, id="projects-not-a-table"),
        pytest.param(b"x = '\xff'\n", 1, 6, id="not-utf8"),
    ],
)
def test_a_broken_config_is_an_error_never_trust(
    tmp_path: Path, text: str | bytes, line: int, column: int
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = home / "config.toml"
    if isinstance(text, bytes):
        config.write_bytes(text)
    else:
        config.write_text(text)
    with pytest.raises(ConfigError) as info:
        codex_layers_for(tmp_path, codex_home=home)
    assert info.value.path == str(config)
    assert (info.value.line, info.value.column) == (line, column)
    assert str(info.value).startswith(f"{config}:{line}:{column}: ")


def test_a_missing_config_trusts_nothing(tmp_path: Path) -> None:
    (tmp_path / "p" / ".codex" / "rules").mkdir(parents=True)
    trust = project_trust(tmp_path / "p", codex_home=tmp_path / "nohome")
    assert trust.status == "unknown" and not trust.loads_project_rules


def test_through_a_symlink_the_real_paths_entry_comes_first(tmp_path: Path) -> None:
    proj, link = tmp_path / "proj", tmp_path / "link"
    home, _ = _setup(tmp_path, _entry(link, "untrusted") + _entry(proj), git=False)
    link.symlink_to(proj)
    trust = project_trust(link, codex_home=home)
    assert (trust.cwd, trust.status, trust.entry) == (proj, "trusted", str(proj))
    (home / "config.toml").write_text(_entry(link))  # the link's spelling still counts
    assert project_trust(link, codex_home=home).entry == str(link)
    (home / "config.toml").write_text(_entry(tmp_path / "other-link"))
    assert project_trust(link, codex_home=home).status == "unknown"


def test_an_edited_config_is_read_again(tmp_path: Path) -> None:
    home, cwd = _setup(tmp_path, _entry(tmp_path / "proj"))
    config = home / "config.toml"
    old = config.stat().st_mtime_ns - 10_000_000_000
    os.utime(config, ns=(old, old))  # old enough to be kept
    assert project_trust(cwd, codex_home=home).status == "trusted"
    config.write_text(_entry(tmp_path / "prox"))  # same size, same inode
    os.utime(config, ns=(old + 1, old + 1))
    assert project_trust(cwd, codex_home=home).status == "unknown"
    config.write_text("broken = \n")
    with pytest.raises(ConfigError):
        project_trust(cwd, codex_home=home)


def test_a_missing_cwd_has_no_project(tmp_path: Path) -> None:
    trust = project_trust(tmp_path / "gone" / "away", codex_home=tmp_path)
    assert (trust.status, trust.folders, trust.root) == ("unknown", (), tmp_path / "gone/away")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_an_unsearchable_folder_is_an_error_not_no_rules(tmp_path: Path) -> None:
    home, cwd = _setup(tmp_path, _entry(tmp_path / "proj"), "sub")
    (tmp_path / "proj" / "sub").chmod(0o600)
    try:
        with pytest.raises(RulesError, match="cannot tell whether Codex would read it"):
            codex_layers_for(cwd, codex_home=home)
    finally:
        (tmp_path / "proj" / "sub").chmod(0o700)
