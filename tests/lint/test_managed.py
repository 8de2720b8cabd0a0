"""`managed-shadowed`: a user rule the admin's tier makes moot (a stricter managed rule matches
every command it matches). The library on a scratch system folder; `shellgate lint` in a
private user + mount namespace where that folder is `/etc/codex` (the machine's /etc is never
written)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shellgate.lint.analyze import analyze
from shellgate.lint.managed import managed_shadow_findings, system_tier_rules
from shellgate.rules.decision import Decision

USER = (
    'prefix_rule(pattern = ["git", "push"], decision = "allow")\n'  # under forbidden `git`
    'prefix_rule(pattern = ["git", ["push", "pull"]], decision = "prompt")\n'  # idem
    'prefix_rule(pattern = ["curl", "-s"], decision = "allow")\n'  # under prompt `curl`
    'prefix_rule(pattern = ["curl"], decision = "prompt")\n'  # equal, not stricter: it decides
    'prefix_rule(pattern = [["ls", "dir"]], decision = "allow")\n'  # `dir` is not covered
    'prefix_rule(pattern = ["ls"], decision = "forbidden")\n'  # stricter than the admin's
)
REQUIREMENTS = (
    "[[rules.prefix_rules]]\n"
    'pattern = [{ any_of = ["git", "hg"] }]\n'
    'decision = "forbidden"\n'
    'justification = "admin: no version control"\n'
)


def _system(root: Path) -> Path:
    system = root / "sys"
    (system / "rules").mkdir(parents=True)
    (system / "rules" / "admin.rules").write_text(
        'prefix_rule(pattern = ["curl"], decision = "prompt")\n'
        'prefix_rule(pattern = ["ls"], decision = "prompt")\n'
    )
    (system / "requirements.toml").write_text(REQUIREMENTS)
    return system


def test_user_rules_under_stricter_managed_rules(tmp_path: Path) -> None:
    managed, files = system_tier_rules(_system(tmp_path))
    assert {(r.first, r.layer, r.decision) for r in managed} == {
        ("curl", "system", Decision.PROMPT), ("ls", "system", Decision.PROMPT),
        ("git", "requirements", Decision.FORBIDDEN), ("hg", "requirements", Decision.FORBIDDEN),
    }  # fmt: skip
    assert len(files) == 2
    found = managed_shadow_findings(analyze(USER, "/home/u/.codex/rules/default.rules"), managed)
    assert [(f.code, f.span.line, f.span.column) for f in found] == [
        ("managed-shadowed", 1, 23), ("managed-shadowed", 2, 23), ("managed-shadowed", 3, 23),
    ]  # fmt: skip
    assert found[0].message == (
        "this rule never decides: the admin's `git` (forbidden, requirements.toml:1 "
        "(requirements)) matches every command it matches, and the stricter decision wins over "
        "every layer"
    )
    assert "`curl` (prompt, admin.rules:1 (system))" in found[2].message


def test_no_managed_tier_no_finding(tmp_path: Path) -> None:
    managed, files = system_tier_rules(tmp_path / "none")
    assert (managed, files) == ([], set())
    assert managed_shadow_findings(analyze(USER, "u.rules"), managed) == []


MOUNT = (
    'mkdir -p "$S/upper" "$S/work" && mount -t overlay overlay '
    '-o lowerdir=/etc,upperdir="$S/upper",workdir="$S/work" /etc && mkdir -p /etc/codex && '
    'mount --bind "$SYS" /etc/codex && exec "$@"'
)


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare")
def test_lint_cli_reads_the_admin_tier(tmp_path: Path) -> None:
    system = _system(tmp_path)
    (tmp_path / "scratch").mkdir()
    (tmp_path / "default.rules").write_text(USER)
    env = {**os.environ, "S": str(tmp_path / "scratch"), "SYS": str(system)}
    argv = ["unshare", "-rm", "sh", "-c", MOUNT, "sh", sys.executable, "-m", "shellgate", "lint",
            "default.rules", "/etc/codex/rules/admin.rules"]  # fmt: skip
    run = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    shadowed = [line for line in run.stdout.splitlines() if "[managed-shadowed]" in line]
    assert [line.split(": warning")[0] for line in shadowed] == [
        "default.rules:1:23", "default.rules:2:23", "default.rules:3:23",
    ]  # fmt: skip
    assert "/etc/codex/rules/admin.rules" not in "".join(shadowed)  # the admin's own file: none
