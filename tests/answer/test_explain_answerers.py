"""`shellgate explain` says who answers: the hooks Codex would run for the command (source,
event, command), the ones it skips, the reviewer, the person; `--run-hooks` runs the PreToolUse
and PermissionRequest hooks (real processes) and shows their decision. The JSON follows
rules-schema/explain.schema.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
from hookenv import Setup, perm, pre
from test_admin_hooks import TOLD, admin, under_admin  # noqa: F401  (the fixture)

SCHEMA = json.loads((Path(__file__).parents[2] / "rules-schema" / "explain.schema.json")
                    .read_text("utf-8"))  # fmt: skip


def explain(s: Setup, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "shellgate", "explain", "--json", "--codex-home", str(s.home),
         "--cwd", str(s.ws), *args], capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(s.root)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def test_lists_the_hooks_codex_would_run_and_skips(tmp_path: Path) -> None:
    s = Setup(tmp_path, {"PreToolUse": pre("deny", "user hook says no")})
    s.user_toml([("PreToolUse", "Bash", "h1", 5), ("PostToolUse", "Edit", "h2", None)])
    (s.home / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "untrusted-one"}]}]}}))
    data = explain(s, "--", "pwd")["answerers"]
    assert [(h["event"], h["source"], h["command"]) for h in data["hooks"]] == [
        ("PreToolUse", "user", s.command("h1"))]  # Edit's matcher does not fire for Bash
    assert [(h["command"], h["why"]) for h in data["skipped_hooks"]] == [
        ("untrusted-one", "untrusted")]
    assert data["reviewer"] is None and data["person"] is True
    assert "decision" not in data and s.calls() == []  # nothing ran without --run-hooks


def test_run_hooks_shows_the_refusal(tmp_path: Path) -> None:
    s = Setup(tmp_path, {"PreToolUse": pre("deny", "user hook says no")})
    s.user_toml([("PreToolUse", "Bash", "h1", None)])
    data = explain(s, "--run-hooks", "--", "pwd")["answerers"]
    assert data["decision"] == {"by": "hook", "outcome": "refused", "told":
                                "Command blocked by PreToolUse hook: user hook says no. "
                                "Command: pwd"}
    assert [(r["event"], r["status"], r["text"]) for r in data["ran"]] == [
        ("PreToolUse", "blocked", "user hook says no")]


def test_run_hooks_explains_a_rewrite_and_asks_permission_hooks(tmp_path: Path) -> None:
    s = Setup(tmp_path, {"PreToolUse": pre("allow", None,
                                           updatedInput={"command": "touch rewritten"}),
                         "PermissionRequest": perm("deny", "perm says no")})
    s.user_toml([("PreToolUse", "Bash", "h1", None), ("PermissionRequest", "Bash", "h1", None)])
    (s.home / "rules").mkdir()
    (s.home / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["touch"], decision="prompt", justification="look first")\n')
    out = explain(s, "--run-hooks", "--", "ls")
    assert out["command"] == ["bash", "-lc", "touch rewritten"]  # Codex judges the new one
    assert out["answerers"]["decision"]["told"] == "perm says no"
    seen = [c["stdin"]["tool_input"]["command"] for c in s.calls()]
    assert seen == ["ls", "touch rewritten"]


def test_the_admins_hook_through_explain(admin: Setup) -> None:  # noqa: F811
    admin.answer("PreToolUse", pre("deny", "managed hook says no"))
    done = under_admin(admin, [sys.executable, "-m", "shellgate", "explain", "--run-hooks",
                               "--codex-home", str(admin.home), "--", "pwd"])  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "hook PreToolUse (system, /etc/codex/requirements.toml)" in done.stdout
    assert TOLD in done.stdout


def test_explain_names_the_reviewer_and_its_model(tmp_path: Path) -> None:
    s = Setup(tmp_path)
    (s.home / "config.toml").write_text(
        'approvals_reviewer = "auto_review"\nmodel = "gpt-5.5"\nmodel_provider = "local"\n'
        '[model_providers.local]\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "chat"\n'
        "[auto_review]\ntimeout_ms = 1500\n")
    data = explain(s, "--approval-policy", "on-request", "--", "pwd")["answerers"]
    assert data["reviewer"] == {"model": "gpt-5.5", "provider": "local", "base_url":
                                "http://127.0.0.1:9/v1", "wire_api": "chat", "timeout_ms": 1500}
    # untrusted puts its questions to the person (Codex's routing)
    assert explain(s, "--approval-policy", "untrusted", "--", "pwd")["answerers"]["reviewer"] \
        is None
