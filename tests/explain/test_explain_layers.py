"""Codex's rule layers, on real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shellgate.codexconfig.layers import (
    LayerKind,
    default_codex_home,
    discover_layers,
    load_layers,
    rules_files,
)
from shellgate.rules.errors import RulesError


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_rules_files_are_regular_dot_rules_files_sorted(tmp_path: Path) -> None:
    d = tmp_path / "rules"
    b = _write(d / "b.rules", "")
    a = _write(d / "a.rules", "")
    _write(d / "notes.txt", "")
    _write(d / "x.rules.bak", "")
    _write(d / ".rules", "")  # no extension to Rust's Path::extension
    (d / "sub.rules").mkdir()
    os.symlink(a, d / "c.rules")  # Codex's DirEntry::file_type does not follow links
    assert rules_files(d) == (str(a), str(b))
    assert rules_files(tmp_path / "missing") == ()


def test_a_rules_path_that_is_not_a_folder_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path / "rules", "not a folder")
    with pytest.raises(RulesError) as info:
        rules_files(tmp_path / "rules")
    assert info.value.kind == "read"
    assert str(tmp_path / "rules") in str(info.value)


def test_codex_home_default(tmp_path: Path) -> None:
    assert default_codex_home({"CODEX_HOME": str(tmp_path)}) == tmp_path
    assert default_codex_home({"CODEX_HOME": "", "HOME": "/h"}) == Path("/h/.codex")


def test_layers_in_codex_order_and_project_only_when_trusted(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    user = _write(
        home / "rules" / "default.rules", 'prefix_rule(pattern=["git"], decision="allow")\n'
    )
    proj = _write(
        project / ".codex" / "rules" / "p.rules",
        'prefix_rule(pattern=["git", "push"], decision="prompt")\n',
    )
    extra = _write(tmp_path / "extra.rules", 'prefix_rule(pattern=["git"], decision="forbidden")\n')

    untrusted = discover_layers(codex_home=home, extra_rules=[str(extra)])
    assert [layer.kind for layer in untrusted] == [LayerKind.USER, LayerKind.CLI]

    layers = discover_layers(codex_home=home, project=project, extra_rules=[str(extra)])
    assert [(layer.kind, layer.files) for layer in layers] == [
        (LayerKind.USER, (str(user),)),
        (LayerKind.PROJECT, (str(proj),)),
        (LayerKind.CLI, (str(extra),)),
    ]
    policy = load_layers(layers)
    matches = policy.matches_for(["git", "push"])
    assert [(m.rule.layer, m.rule.span.path if m.rule.span else None) for m in matches] == [
        ("user", str(user)),
        ("project", str(proj)),
        ("cli", str(extra)),
    ]
    assert matches[1].rule.span is not None and matches[1].rule.span.line == 1


def test_a_broken_file_is_an_error_not_an_empty_policy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bad = _write(home / "rules" / "bad.rules", 'prefix_rule(pattern=["rm"], decision="deny")\n')
    with pytest.raises(RulesError) as info:
        load_layers(discover_layers(codex_home=home))
    assert info.value.path == str(bad)
    assert info.value.line == 1 and info.value.column > 0
