"""`shellgate.config_edit`, the file handling both installers share, on real files: refusals
name file, line and column and write nothing; a file already right keeps its bytes; a changed
file keeps its mode and is backed up first (the first state, or every state)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from shellgate.config_edit import ConfigError, edit_json, member, read_toml, save


def test_refusals_name_the_position_and_write_nothing(tmp_path: Path) -> None:
    bad_json = tmp_path / "settings.json"
    bad_json.write_text('{"a": 1,\n  "b": }')
    with pytest.raises(ConfigError, match=r"settings.json:2:8: not valid JSON"):
        edit_json(bad_json, "x", lambda d: d.update(c=1))
    bad_toml = tmp_path / "config.toml"
    bad_toml.write_text('model = "o3"\n[broken\n')
    with pytest.raises(ConfigError, match=r"config.toml:2:8: not valid TOML"):
        read_toml(bad_toml)
    shape = tmp_path / "shape.json"
    shape.write_text('{"hooks": []}')
    with pytest.raises(ConfigError, match="`hooks` is not an object"):
        edit_json(shape, "x", lambda d: member(d, "hooks", dict, shape))
    assert bad_json.read_text() == '{"a": 1,\n  "b": }' and shape.read_text() == '{"hooks": []}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "settings.json",
                                                          "shape.json"]  # fmt: skip


def test_already_right_keeps_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"a":1,  "b":[2]}')  # the user's own formatting
    change = edit_json(path, "x", lambda d: d.update(a=1))
    assert not change.changed and change.backup is None
    assert path.read_text() == '{"a":1,  "b":[2]}' and len(list(tmp_path.iterdir())) == 1


def test_backups_every_state_one_naming_and_mode_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0o600)
    backups = [edit_json(path, "x", lambda d, n=n: d.update(n=n)).backup for n in (1, 2)]
    assert [b.read_text() if b else None for b in backups] == ["{}", '{\n  "n": 1\n}\n']
    for b in backups:  # `hook install` and `mcp install` alike: <name>.shellgate-<time>.bak
        assert b is not None and re.fullmatch(r"settings\.json\.shellgate-\d{8}-\d{6}(-\d+)?\.bak",
                                              b.name), b  # fmt: skip
    assert json.loads(path.read_text()) == {"n": 2} and path.stat().st_mode & 0o777 == 0o600
    toml = tmp_path / "config.toml"
    texts = ["a = 1\n", "a = 2\n", "a = 3\n"]
    toml.write_text(texts[0])
    backups = [save(toml, "x", text).backup for text in texts[1:]]
    assert [b.read_text() for b in backups if b] == texts[:2]  # every state kept
    assert not save(toml, "x", texts[2]).changed
    fresh = save(tmp_path / "new" / "f.toml", "x", "a = 1\n")
    assert fresh.changed and fresh.backup is None  # nothing to back up
