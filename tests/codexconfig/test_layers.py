"""The editor's and lint's view of the admin's tier: /etc/codex/rules first (layer "system"),
requirements.toml last (layer "requirements"), Codex's error or ignored keys as findings."""

from __future__ import annotations

from pathlib import Path

from shellgate.codexconfig.layer_cache import load_layers_cached
from shellgate.codexconfig.resolve import resolve
from shellgate.lint.analyze import analyze_file
from shellgate.lint.workspace import discover_layer_files, merge_files
from shellgate.rules.decision import Decision


def _tier(tmp_path: Path, requirements: str) -> tuple[Path, Path]:
    system, home = tmp_path / "sys", tmp_path / "home"
    (system / "rules").mkdir(parents=True)
    (home / "rules").mkdir(parents=True)
    (system / "rules" / "admin.rules").write_text('prefix_rule(pattern=["ls"], decision="prompt")')
    (home / "rules" / "default.rules").write_text('prefix_rule(pattern=["ls"], decision="allow")')
    (system / "requirements.toml").write_text(requirements)
    return system, home


def test_the_editor_merges_the_admin_tier(tmp_path: Path) -> None:
    system, home = _tier(tmp_path, '[rules]\nprefix_rules = [{ pattern = [{ token = "rm" }], '
                                   'decision = "forbidden", colour = 1 }]\n')  # fmt: skip
    files = discover_layer_files(codex_home=home, project_roots=(), system_dir=system)
    assert [f.layer for f in files] == ["system", "user", "requirements"]
    merged = merge_files([(f, analyze_file(f.path)) for f in files])
    assert not merged.broken
    assert merged.policy.check(["rm", "x"]).decision is Decision.FORBIDDEN
    assert merged.policy.check(["ls"]).decision is Decision.PROMPT  # the strictest wins
    findings = analyze_file(str(system / "requirements.toml")).findings
    assert [(f.code, f.span.line, f.span.column) for f in findings] == [
        ("requirements-ignored", 2, 73)
    ]
    # the CLI's loader agrees with the editor's merge
    config = resolve(tmp_path, codex_home=home, system_dir=system)
    policy = load_layers_cached(config.layers)
    assert [r.layer for r in policy.rules] == ["system", "user", "requirements"]


def test_broken_requirements_are_a_refused_layer(tmp_path: Path) -> None:
    system, home = _tier(tmp_path, "allowed_approval_policies = []\n")
    files = discover_layer_files(codex_home=home, project_roots=(), system_dir=system)
    merged = merge_files([(f, analyze_file(f.path)) for f in files])
    [(layer, err)] = merged.broken
    assert layer.layer == "requirements"
    assert (err.message, err.line, err.column) == (
        "field `allowed_approval_policies` cannot be empty", 1, 1)
