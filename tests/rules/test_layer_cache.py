"""The on-disk policy cache: a cached load equals a fresh one, follows edits, never keeps a
failure, survives damage, and is off with SHELLGATE_NO_CACHE=1. Real files, real loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.codexconfig.layer_cache import cache_path, load_layers_cached
from shellgate.codexconfig.layers import discover_layers, load_layers
from shellgate.rules.errors import RulesError

RULES = """\
prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt", justification="remote")
prefix_rule(pattern=["ls"], decision="allow", canonical_matching=True)
network_rule(host="example.com", protocol="https", decision="allow")
host_executable(name="git", paths=["/usr/bin/git"])
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SHELLGATE_NO_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    codex_home = tmp_path / "codex"
    (codex_home / "rules").mkdir(parents=True)
    (codex_home / "rules" / "default.rules").write_text(RULES, encoding="utf-8")
    return codex_home


def _entries(home: Path) -> list[Path]:
    folder = home.parent / "cache" / "shellgate" / "layers"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _same(a: object, b: object) -> None:
    from shellgate.rules.policy import Policy

    assert isinstance(a, Policy) and isinstance(b, Policy)
    assert a.rules == b.rules
    assert a.network_rules == b.network_rules
    assert dict(a.host_executables) == dict(b.host_executables)


def test_cached_load_equals_a_fresh_one(home: Path) -> None:
    layers = discover_layers(codex_home=home)
    fresh = load_layers(layers)
    assert any(r.canonical_matching for r in fresh.rules)  # the round trip must keep it
    _same(load_layers_cached(layers), fresh)
    assert len(_entries(home)) == 1
    _same(load_layers_cached(layers), fresh)  # now from the cache
    assert len(_entries(home)) == 1


def test_an_edit_gives_a_new_entry(home: Path) -> None:
    load_layers_cached(discover_layers(codex_home=home))
    path = home / "rules" / "default.rules"
    path.write_text('prefix_rule(pattern=["ls"], decision="forbidden")\n', encoding="utf-8")
    layers = discover_layers(codex_home=home)
    _same(load_layers_cached(layers), load_layers(layers))
    assert len(_entries(home)) == 2


def test_a_failure_is_never_cached(home: Path) -> None:
    (home / "rules" / "default.rules").write_text('prefix_rule(pattern=["ls"]\n', encoding="utf-8")
    layers = discover_layers(codex_home=home)
    for _ in range(2):
        with pytest.raises(RulesError):
            load_layers_cached(layers)
    assert _entries(home) == []


def test_a_damaged_entry_is_reloaded(home: Path) -> None:
    layers = discover_layers(codex_home=home)
    load_layers_cached(layers)
    (entry,) = _entries(home)
    entry.write_bytes(b"\x00not marshal")
    _same(load_layers_cached(layers), load_layers(layers))


def test_no_cache_switch(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELLGATE_NO_CACHE", "1")
    layers = discover_layers(codex_home=home)
    assert cache_path(layers) is None
    _same(load_layers_cached(layers), load_layers(layers))
    assert _entries(home) == []
