"""The Policy view's entry for a folder (lint.overview), from real files analysed as the
language server analyses them."""

from __future__ import annotations

from pathlib import Path

from shellgate.lint.analyze import analyze_file
from shellgate.lint.overview import folder_overview
from shellgate.lint.workspace import LayerFile


def test_layers_files_rules_by_program_refusal_trust_and_the_admins_reads(tmp_path: Path) -> None:
    good = tmp_path / "default.rules"
    good.write_text('prefix_rule(pattern=["git", ["push", "fetch"]], decision="prompt")\n'
                    'prefix_rule(pattern=["rm"], decision="forbidden")\n')  # fmt: skip
    bad = tmp_path / "p.rules"
    bad.write_text('prefix_rule(pattern=[], decision="allow")\n')
    files = [LayerFile(str(bad), "project"), LayerFile(str(good), "user")]
    trust = {"root": str(tmp_path), "status": "trusted", "codexLoads": True, "message": "ok"}
    got = folder_overview(str(tmp_path), files, analyze_file, trust=trust, requirements=None,
                          deny_read=["/etc/secrets"])  # fmt: skip
    assert [x["layer"] for x in got["layers"]] == ["user", "project"]  # Codex's order
    assert got["loads"] is False and got["rules"] == 2 and got["denyRead"] == ["/etc/secrets"]
    user = got["layers"][0]["files"][0]
    assert [(p["program"], [r["pattern"] for r in p["rules"]]) for p in user["programs"]] == [
        ("git", ["git push|fetch"]), ("rm", ["rm"])]
    refused = got["layers"][1]["files"][0]
    assert refused["rules"] == 0 and refused["error"]["line"] == 1 and refused["error"]["message"]
