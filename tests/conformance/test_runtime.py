"""Every case of runtime_cases.jsonl (what the real Codex 0.169.0 did) predicted by the real
`shellgate explain --json` process, run as the conformance README says: the case's rules in a
rules file, an empty CODEX_HOME, `{OUTSIDE}` replaced by a plain absolute path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conformance_corpus import rows

NAME = "runtime_cases.jsonl"
OUTSIDE = "/tmp/shellgate-outside"
SCHEMA = json.loads(
    (Path(__file__).parents[2] / "rules-schema" / "explain.schema.json").read_text("utf-8")
)
KNOWN_KEYS = {
    "id", "rules", "approval_policy", "sandbox", "sandbox_permissions", "justification",
    "codex_argv", "expect", "observed", "note",
}  # fmt: skip


def _rows() -> list[dict[str, Any]]:
    return rows(NAME)


CASES = _rows()


def _fill(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("{OUTSIDE}", OUTSIDE)
    if isinstance(value, list):
        return [_fill(v) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v) for k, v in value.items()}
    return value


def _run(case: dict[str, Any], root: Path) -> dict[str, Any]:
    folder = root / str(CASES.index(case))
    home = folder / "codex-home"
    home.mkdir(parents=True)
    args = [sys.executable, "-m", "shellgate", "explain", "--json"]
    if case["rules"] is not None:
        rules = folder / "case.rules"
        rules.write_text(case["rules"], encoding="utf-8")
        args += ["--rules", str(rules)]
    policy = case["approval_policy"]
    args += ["--approval-policy", policy if isinstance(policy, str) else json.dumps(policy)]
    args += ["--sandbox", case["sandbox"], "--sandbox-permissions", case["sandbox_permissions"]]
    if case["justification"] is not None:
        args += ["--justification", case["justification"]]
    args += ["--", *_fill(case["codex_argv"])]
    env = {**os.environ, "CODEX_HOME": str(home), "XDG_CACHE_HOME": str(folder / "cache")}
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=folder, timeout=120)
    return {"code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("runtime")
    # One real process per case; run them side by side to keep the suite quick.
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
        done = pool.map(lambda c: (c["id"], _run(c, root)), CASES)
        return dict(done)


def _offered(decision: Any) -> str:
    return decision if isinstance(decision, str) else next(iter(decision))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_runtime_case(case: dict[str, Any], results: dict[str, dict[str, Any]]) -> None:
    unknown = {k for k in set(case) - KNOWN_KEYS if case[k] is not None}
    assert not unknown, f"unknown case fields {sorted(unknown)}: this test cannot judge them"
    run = results[case["id"]]
    assert run["code"] == 0, run["stderr"]
    out = json.loads(run["stdout"])
    jsonschema.validate(out, SCHEMA)
    got = out["requirement"]
    expect = _fill(case["expect"])
    observed = _fill(case["observed"])
    assert expect["type"] in ("skip", "needs_approval", "forbidden"), expect
    assert got["type"] == expect["type"], (got, expect)
    if expect["type"] == "skip":
        if "bypass_sandbox" in expect:
            assert got["bypass_sandbox"] == expect["bypass_sandbox"]
        if observed.get("ran_unsandboxed") is not None:
            assert out["first_attempt"]["sandboxed"] is not observed["ran_unsandboxed"]
    elif expect["type"] == "needs_approval":
        assert got["reason"] == expect["reason"]
        assert got["proposed_execpolicy_amendment"] == expect["proposed_execpolicy_amendment"]
        if observed.get("available_decisions") is not None:
            offered = [_offered(d) for d in observed["available_decisions"]]
            assert got["available_decisions"] == offered
    else:
        assert got["reason"] == expect["reason"]


def test_corpus_is_not_empty() -> None:
    assert len(CASES) > 0
