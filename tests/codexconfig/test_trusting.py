"""Trusting a project as Codex records it, read back by Codex's own trust resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.codexconfig.trust import project_trust
from shellgate.codexconfig.trusting import trust_folder
from shellgate.config_edit import ConfigError


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".codex" / "rules").mkdir(parents=True)
    return project


def test_appends_a_table_then_codex_trusts_the_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", _project(tmp_path)
    home.mkdir()
    (home / "config.toml").write_text('model = "x"\n')
    assert project_trust(project, codex_home=home).status == "unknown"
    done = trust_folder(home, project)
    assert done.changed
    text = (home / "config.toml").read_text()
    assert text == f'model = "x"\n\n[projects."{project}"]\ntrust_level = "trusted"\n'
    assert project_trust(project, codex_home=home).loads_project_rules
    assert not trust_folder(home, project).changed  # already trusted: not touched


def test_an_untrusted_entry_becomes_trusted_in_place(tmp_path: Path) -> None:
    home, project = tmp_path / "home", _project(tmp_path)
    home.mkdir()
    before = f'[projects."{project}"]\ntrust_level = "untrusted"\nother = 1\n\n[tui]\nx = 2\n'
    (home / "config.toml").write_text(before)
    trust_folder(home, project)
    assert (home / "config.toml").read_text() == before.replace('"untrusted"', '"trusted"')
    assert project_trust(project, codex_home=home).status == "trusted"


def test_a_broken_config_is_refused_and_left_alone(tmp_path: Path) -> None:
    home, project = tmp_path / "home", _project(tmp_path)
    home.mkdir()
    (home / "config.toml").write_text("model = \n")
    with pytest.raises(ConfigError, match=r"config\.toml:1:"):
        trust_folder(home, project)
    assert (home / "config.toml").read_text() == "model = \n"
