"""The real Codex (0.169.0, 0.171.0) with ShellGate's hooks installed by `shellgate hook install
codex`: Codex trusts them (its own app-server `hooks/list`, through `shellgate hook doctor`), a
plain command runs with the hook quiet, and a hook that cannot decide blocks."""

from __future__ import annotations

import pytest
from agents import Home, bash, codex_doctor, codex_exec, run_turn

import realtools


def _exec(home: Home, codex: str, script: list[dict[str, object]], **env: str) -> dict[str, object]:
    argv = codex_exec(codex, "-s", "workspace-write")
    return run_turn(home, script, argv, home.env(NO_COLOR="1", **env))


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_installed_hooks_are_trusted_and_a_failing_hook_blocks(home: Home, version: str) -> None:
    codex = str(realtools.codex(version))
    home.install("codex")
    doctor = codex_doctor(home, codex)
    assert doctor.returncode == 0 and "codex: live" in doctor.stdout, doctor.stdout + doctor.stderr

    ran = _exec(home, codex, [bash("touch made"), {"text": "fin"}])
    assert (home.ws / "made").exists(), ran["stdout"]

    # A hook that cannot work (here: a fallback setting it does not know) blocks, never passes.
    script = [bash("touch again"), {"text": "fin"}]
    result = _exec(home, codex, script, SHELLGATE_HOOK_FALLBACK="sometimes")
    assert not (home.ws / "again").exists()
    assert "Command blocked by PreToolUse hook" in str(result["requests"]), result
    assert "must be ask or deny" in str(result["requests"])


def test_doctor_says_what_is_wrong_with_a_stale_trust_hash(home: Home) -> None:
    codex = str(realtools.codex())
    home.install("codex")
    config = home.codex_home / "config.toml"
    config.write_text(
        config.read_text().replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:0')
    )
    doctor = codex_doctor(home, codex)
    assert doctor.returncode == 1 and "codex: NOT live" in doctor.stdout
    assert "modified" in doctor.stdout and "skips it silently" in doctor.stdout
