"""`shellgate explain` and `shellgate run` load the project rules Codex would: trust from
Codex's config.toml, for the cwd; `--project DIR` still means "trust this project"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "rules-schema" / "explain.schema.json").read_text("utf-8")
)
IGNORED = "Codex ignores this project's rules: the project is not trusted in Codex's config"


def _sg(
    *args: str, home: Path, cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    return subprocess.run([sys.executable, "-m", "shellgate", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, input=stdin, timeout=60)  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "src").mkdir()
    (proj / ".codex" / "rules").mkdir(parents=True)
    (proj / ".codex" / "rules" / "p.rules").write_text(
        'prefix_rule(pattern=["touch"], decision="forbidden", justification="no touching")\n'
    )
    return proj


def _home(tmp_path: Path, config: str) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(config)
    return home


def _explain_json(*args: str, home: Path, cwd: Path) -> dict[str, object]:
    proc = _sg("explain", "--json", *args, "--", "touch", "x", home=home, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, object] = json.loads(proc.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def test_no_entry_codex_ignores_the_project_rules(tmp_path: Path, project: Path) -> None:
    home = _home(tmp_path, "")
    text = _sg("explain", "--", "touch", "x", home=home, cwd=project / "src")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("ALLOWED")
    assert f"project    {IGNORED} ({home / 'config.toml'})" in text.stdout
    data = _explain_json(home=home, cwd=project / "src")
    assert data["decision"] == "allow" and data["rules_files"] == []
    assert data["project"] == {
        "source": "config", "cwd": str(project / "src"), "root": str(project),
        "status": "unknown", "config": str(home / "config.toml"), "entry": None,
        "loads_project_rules": False,
        "folders": [{"folder": str(project), "status": "unknown", "entry": None,
                     "loaded": False}],
        "description": f"{IGNORED} ({home / 'config.toml'}); no [projects.\"…\"] entry for "
        f"{project}",
    }  # fmt: skip


def test_trusted_in_config_the_project_rules_decide(tmp_path: Path, project: Path) -> None:
    home = _home(tmp_path, f'[projects."{project}"]\ntrust_level = "trusted"\n')
    data = _explain_json("--cwd", str(project / "src"), home=home, cwd=tmp_path)
    assert data["decision"] == "forbidden"
    assert data["cwd"] == str(project / "src")
    assert data["rules_files"] == [
        {"path": str(project / ".codex/rules/p.rules"), "layer": "project"}
    ]
    trust = data["project"]
    assert isinstance(trust, dict) and trust["status"] == "trusted"
    assert trust["entry"] == str(project) and trust["loads_project_rules"] is True


def test_untrusted_entry_is_named(tmp_path: Path, project: Path) -> None:
    home = _home(tmp_path, f'[projects."{project}"]\ntrust_level = "untrusted"\n')
    proc = _sg("explain", "--", "touch", "x", home=home, cwd=project)
    assert proc.returncode == 0 and proc.stdout.startswith("ALLOWED")
    assert "Codex ignores this project's rules: the project is marked untrusted in Codex's " \
        f'config ({home / "config.toml"}) by [projects."{project}"]' in proc.stdout


def test_project_flag_still_trusts(tmp_path: Path, project: Path) -> None:
    home = _home(tmp_path, f'[projects."{project}"]\ntrust_level = "untrusted"\n')
    data = _explain_json("--project", str(project), home=home, cwd=tmp_path)
    assert data["decision"] == "forbidden"
    trust = data["project"]
    assert isinstance(trust, dict) and (trust["source"], trust["status"]) == ("flag", "trusted")
    assert str(trust["description"]).startswith(f"--project trusts {project}: ")


def test_a_broken_config_decides_nothing(tmp_path: Path, project: Path) -> None:
    home = _home(tmp_path, f'[projects."{project}"]\ntrust_level = "trusted"\nthis is = broken\n')
    proc = _sg("explain", "--", "touch", "x", home=home, cwd=project)
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"{home / 'config.toml'}:3:6: Expected '=' after a key" in proc.stderr
    assert "Codex refuses to start with this config.toml" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_obeys_the_trusted_project_and_notes_an_ignored_one(
    tmp_path: Path, project: Path
) -> None:
    home = _home(tmp_path, f'[projects."{project}"]\ntrust_level = "trusted"\n')
    refused = _sg("run", "--", "touch", "x", home=home, cwd=project / "src")
    assert refused.returncode == 121, refused.stderr
    assert "`touch x` rejected: no touching" in refused.stderr
    assert not (project / "src" / "x").exists()
    _home(tmp_path, "")
    # untrusted: the project's forbidden rule does not apply; `untrusted` asks, "d" declines
    asked = _sg("run", "--approval-policy", "untrusted", "--", "touch", "x", home=home,
                cwd=project / "src", stdin="d\n")  # fmt: skip
    assert asked.returncode == 122, asked.stderr
    assert f"shellgate run: note: {IGNORED}" in asked.stderr
    assert not (project / "src" / "x").exists()


def test_run_with_a_broken_config_runs_nothing(tmp_path: Path, project: Path) -> None:
    home = _home(tmp_path, "trust_level = trusted\n")
    proc = _sg("run", "--", "touch", "made", home=home, cwd=project)
    assert proc.returncode == 120
    assert f"{home / 'config.toml'}:1:15: Invalid value" in proc.stderr
    assert "nothing is decided or run until it is fixed" in proc.stderr
    assert not (project / "made").exists()
