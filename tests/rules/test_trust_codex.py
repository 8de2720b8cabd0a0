"""The real Codex is the oracle: for each layout, the `.codex/rules` folders Codex obeys are the
project layers `codex_layers_for` returns. Codex runs offline (`unshare -rn`, the stand-in)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from codex_trust_probe import Probe, forbid, run_codex

import realtools
from shellgate.codexconfig.layers import LayerKind
from shellgate.codexconfig.resolve import codex_layers_for
from shellgate.codexconfig.trust import ConfigError, project_trust

Layout = Callable[[Path], tuple[str, Path, list[Probe]]]  # tmp → (config.toml, cwd, probes)


def _entry(key: Path, level: str = "trusted") -> str:
    return f'[projects."{key}"]\ntrust_level = "{level}"\n'


def _repo(tmp: Path, *nested: str) -> tuple[Path, list[Probe]]:
    folder = tmp / "proj"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    probes = [forbid(folder / ".codex" / "rules", "m_root")]
    for part in nested:
        folder = folder / part
        probes.append(forbid(folder / ".codex" / "rules", f"m_{part}"))
    return folder, probes


def trusted(tmp: Path) -> tuple[str, Path, list[Probe]]:
    cwd, probes = _repo(tmp)
    return _entry(tmp / "proj"), cwd, probes


def untrusted(tmp: Path) -> tuple[str, Path, list[Probe]]:
    cwd, probes = _repo(tmp)
    return _entry(tmp / "proj", "untrusted"), cwd, probes


def absent(tmp: Path) -> tuple[str, Path, list[Probe]]:
    cwd, probes = _repo(tmp)
    return _entry(tmp / "elsewhere"), cwd, probes


def nested(tmp: Path) -> tuple[str, Path, list[Probe]]:
    # root trusted, `sub` without an entry (takes the root's), `sub/deep` untrusted
    cwd, probes = _repo(tmp, "sub", "deep")
    return _entry(tmp / "proj") + _entry(cwd, "untrusted"), cwd, probes


def nested_cwd_trusted(tmp: Path) -> tuple[str, Path, list[Probe]]:
    cwd, probes = _repo(tmp, "sub")
    return _entry(cwd), cwd, probes


def worktree(tmp: Path) -> tuple[str, Path, list[Probe]]:
    main, _ = _repo(tmp)
    git = ["git", "-C", str(main), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp / "wt")], check=True)
    return _entry(main), tmp / "wt", [forbid(tmp / "wt" / ".codex" / "rules", "m_wt")]


def symlink(tmp: Path) -> tuple[str, Path, list[Probe]]:
    # cwd reached through a symlink: the real path's entry wins over the link's
    (tmp / "proj").mkdir()
    probes = [forbid(tmp / "proj" / ".codex" / "rules", "m_root")]
    (tmp / "link").symlink_to(tmp / "proj")
    return _entry(tmp / "link", "untrusted") + _entry(tmp / "proj"), tmp / "link", probes


def _agree(codex: Path, tmp: Path, layout: Layout) -> dict[str, bool]:
    config, cwd, probes = layout(tmp)
    home = tmp / "home"
    home.mkdir()
    (home / "config.toml").write_text(config)
    refused = run_codex(codex, codex_home=home, cwd=cwd, probes=probes, work=tmp / "work")
    layers, _ = codex_layers_for(cwd, codex_home=home)
    ours = {os.path.realpath(x.folder or "") for x in layers if x.kind is LayerKind.PROJECT}
    assert {p.marker: os.path.realpath(p.rules_dir) in ours for p in probes} == refused
    return refused


CASES = [trusted, untrusted, absent, nested, nested_cwd_trusted, worktree, symlink]


@pytest.mark.parametrize("layout", CASES, ids=[c.__name__ for c in CASES])
def test_codex_0169_obeys_the_layers_shellgate_predicts(tmp_path: Path, layout: Layout) -> None:
    refused = _agree(realtools.codex("0.169.0"), tmp_path, layout)
    expected = {
        "trusted": {"m_root": True},
        "untrusted": {"m_root": False},
        "absent": {"m_root": False},
        "nested": {"m_root": True, "m_sub": True, "m_deep": False},
        "nested_cwd_trusted": {"m_root": False, "m_sub": True},
        "worktree": {"m_wt": True},
        "symlink": {"m_root": True},
    }[layout.__name__]
    assert refused == expected  # both sides agree; and they agree with docs/trust.md


@pytest.mark.parametrize("layout", CASES[:3], ids=[c.__name__ for c in CASES[:3]])
def test_codex_0171_obeys_the_layers_shellgate_predicts(tmp_path: Path, layout: Layout) -> None:
    _agree(realtools.codex("0.171.0"), tmp_path, layout)


def test_a_broken_config_stops_codex_and_shellgate_at_the_same_place(tmp_path: Path) -> None:
    codex = realtools.codex("0.169.0")
    cwd, probes = _repo(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(_entry(tmp_path / "proj") + "this is = broken\n")
    with pytest.raises(AssertionError, match="ran=False refused=False"):
        run_codex(codex, codex_home=home, cwd=cwd, probes=probes, work=tmp_path / "work")
    stderr = (tmp_path / "work" / "stderr.txt").read_text()
    with pytest.raises(ConfigError) as info:
        codex_layers_for(cwd, codex_home=home)
    assert "Error loading config.toml" in stderr
    assert f"{home / 'config.toml'}:{info.value.line}:{info.value.column}:" in stderr


@pytest.mark.parametrize("git", [True, False], ids=["git", "no-git"])
def test_codex_exec_trust_writes_the_root_shellgate_resolves(tmp_path: Path, git: bool) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    if git:
        subprocess.run(["git", "init", "-q", str(proj)], check=True)
    cwd = proj / "sub"
    probes = [
        forbid(proj / ".codex" / "rules", "m_root"),
        forbid(cwd / ".codex" / "rules", "m_sub"),
    ]
    home = tmp_path / "home"
    home.mkdir()
    before = project_trust(cwd, codex_home=home)
    assert before.status == "unknown" and before.root == (proj if git else cwd)
    refused = run_codex(realtools.codex("0.169.0"), codex_home=home, cwd=cwd, probes=probes,
                        work=tmp_path / "work", extra=["--trust"])  # fmt: skip
    assert (home / "config.toml").read_text() == (
        f'[projects."{before.root}"]\ntrust_level = "trusted"\n'
    )
    after = project_trust(cwd, codex_home=home)
    assert (after.status, after.entry) == ("trusted", str(before.root))
    assert refused == {"m_root": git, "m_sub": True}
    layers, _ = codex_layers_for(cwd, codex_home=home)
    ours = {x.folder for x in layers if x.kind is LayerKind.PROJECT}
    assert {p.marker: str(p.rules_dir) in ours for p in probes} == refused
