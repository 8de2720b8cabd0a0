"""`shellgate mcp install`: the files each client reads, written idempotently with a backup, other
settings kept, bad files refused with their position; Codex's own `codex mcp list` reads ours."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import realtools
from shellgate.mcp.install import InstallError, install


def _run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:  # fmt: skip
    import os

    return subprocess.run([sys.executable, "-m", "shellgate", "mcp", "install", *args],
                          capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})})  # fmt: skip


def test_codex_keeps_other_tables_is_idempotent_and_uninstalls(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    config = home / "config.toml"
    original = ('model = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n\n'
                '[mcp_servers.shellgate]\ncommand = "old"\n\n[mcp_servers.shellgate.env]\n'
                'A = "1"\n\n[projects."/p"]\ntrust_level = "trusted"\n')  # fmt: skip
    config.write_text(original)
    first = install("codex", scope="user", project=tmp_path, home=tmp_path, codex_home=home)
    assert first[0].changed and first[0].backup is not None
    assert first[0].backup.read_text() == original
    data = tomllib.loads(config.read_text())
    ours = data["mcp_servers"]["shellgate"]
    assert ours["command"] == sys.executable
    assert ours["args"][:4] == ["-I", "-m", "shellgate", "mcp"]
    assert ours["default_tools_approval_mode"] == "approve" and ours["required"] is True
    assert "env" not in ours  # the old table and its sub-table are replaced whole
    assert data["mcp_servers"]["other"] == {"command": "x"} and data["model"] == "o3"
    assert data["projects"]["/p"] == {"trust_level": "trusted"}
    again = install("codex", scope="user", project=tmp_path, home=tmp_path, codex_home=home)
    assert not again[0].changed and len(list(home.glob("*.bak"))) == 1
    install("codex", scope="user", project=tmp_path, home=tmp_path, codex_home=home,
            uninstall=True)  # fmt: skip
    data = tomllib.loads(config.read_text())
    assert "shellgate" not in data["mcp_servers"] and data["model"] == "o3"


def test_codex_refuses_what_it_cannot_edit_safely(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("mcp_servers = { shellgate = { command = 'x' } }\n")
    with pytest.raises(InstallError, match="inline"):
        install("codex", scope="user", project=tmp_path, home=tmp_path, codex_home=tmp_path)
    config.write_text("[broken\n")
    with pytest.raises(InstallError, match="not valid TOML"):
        install("codex", scope="user", project=tmp_path, home=tmp_path, codex_home=tmp_path)
    assert config.read_text() == "[broken\n"


def test_claude_code_user_and_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3}))
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}))
    install("claude-code", scope="user", project=project, home=home, codex_home=tmp_path)
    state = json.loads((home / ".claude.json").read_text())
    assert state["numStartups"] == 3 and state["mcpServers"]["shellgate"]["type"] == "stdio"
    allow = json.loads((home / ".claude" / "settings.json").read_text())["permissions"]["allow"]
    assert allow == ["Bash(ls:*)", "mcp__shellgate__shell"]
    assert not any(c.changed for c in install("claude-code", scope="user", project=project,
                                              home=home, codex_home=tmp_path))  # fmt: skip
    install("claude-code", scope="project", project=project, home=home, codex_home=tmp_path)
    assert "shellgate" in json.loads((project / ".mcp.json").read_text())["mcpServers"]
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["enabledMcpjsonServers"] == ["shellgate"]
    install("claude-code", scope="project", project=project, home=home, codex_home=tmp_path,
            uninstall=True)  # fmt: skip
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {}
    assert json.loads((project / ".mcp.json").read_text()) == {}


def test_gemini_trust_and_bad_json(tmp_path: Path) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"general": {"vimMode": true},\n  "mcpServers": [1, }')
    with pytest.raises(InstallError, match=r"settings.json:2:\d+: not valid JSON"):
        install("gemini", scope="user", project=tmp_path, home=tmp_path, codex_home=tmp_path)
    settings.write_text(json.dumps({"general": {"vimMode": True}}))
    install("gemini", scope="user", project=tmp_path, home=tmp_path, codex_home=tmp_path)
    data = json.loads(settings.read_text())
    assert data["general"] == {"vimMode": True}
    assert data["mcpServers"]["shellgate"]["trust"] is True


def test_cli_summary_and_the_real_codex_reads_it(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    out = _run("codex", "--codex-home", str(home))
    assert out.returncode == 0, out.stderr
    assert "(updated)" in out.stdout and str(home / "config.toml") in out.stdout
    assert "(already so)" in _run("codex", "--codex-home", str(home)).stdout
    bad = _run("gemini", "--scope", "project", "--project", str(tmp_path / "nope"),
               env={"HOME": str(tmp_path)})  # fmt: skip
    assert bad.returncode == 0  # a new project folder is fine: its .gemini is created
    codex = realtools.codex()
    listed = subprocess.run([str(codex), "mcp", "list", "--json"], capture_output=True, text=True,
                            env={"CODEX_HOME": str(home), "HOME": str(tmp_path)},
                            timeout=30)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    (server,) = json.loads(listed.stdout)
    assert server["name"] == "shellgate" and server["enabled"] is True
    assert server["transport"]["args"][:4] == ["-I", "-m", "shellgate", "mcp"]
    assert server["transport"]["env_vars"] == ["XDG_RUNTIME_DIR"]
