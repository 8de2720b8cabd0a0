"""The real Codex as the oracle for the shape of the export, offline against the stand-in
model, `[otel]` pointing at a receiver in the same network namespace: `codex exec` (0.169.0 and
0.171.0), two situations in one turn (a command allowed, one refused by a rule); `codex
app-server` (0.171.0) with a person's answers (accept, accept for the session, decline). What it
exports must be what codex_shapes.json says, the fixture the ShellGate-side tests
(test_export.py, test_hook_export.py) compare ShellGate's export with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from receiver import rows_of
from shapes import shape

import realtools
from realclients import dump, home_dir, run_client

pytestmark = pytest.mark.timeout(240)
HERE = Path(__file__).parent
CODEX = json.loads((HERE / "codex_shapes.json").read_text())
# The sandbox's denial (o171-exec-sandbox-denied) is not among them: run this way (`unshare
# -rn`), Codex exports no codex.sandbox_outcome for it; the fixture's comes from the recipe's
# runs (`unshare -rnm`, ../shared/recipes/hooks-otel), as the spec records it.
SITUATIONS = ("o171-exec-allowed", "o171-exec-forbidden-rule")


@pytest.fixture
def scratch() -> Iterator[Path]:
    yield from home_dir()


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_codex_exports_what_the_fixture_says(scratch: Path, version: str) -> None:
    codex = realtools.codex(version)
    home, ws = scratch / "codex-home", scratch / "ws"
    for d in (home / "rules", ws):
        d.mkdir(parents=True)
    (home / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm here")\n')
    url = "http://127.0.0.1:4318/v1"
    (home / "config.toml").write_text(
        '[otel]\nenvironment = "oracle"\n'
        f'exporter = {{ otlp-http = {{ endpoint = "{url}/logs", protocol = "json" }} }}\n'
        f'metrics_exporter = {{ otlp-http = {{ endpoint = "{url}/metrics", '
        'protocol = "json" } }\n')  # fmt: skip
    script = [{"tool_calls": [{"name": "exec_command", "arguments": {"cmd": cmd}}]}
              for cmd in ("echo hi", "rm -f f")]  # fmt: skip
    script.append({"text": "done"})
    posts = scratch / "posts.jsonl"
    client = (
        f"python3 {HERE / 'receiver.py'} {posts} 4318 & sleep 0.5; cd {ws} && git init -q; "
        f'timeout 120 {codex} exec --json --skip-git-repo-check -C "{ws}" -s workspace-write '
        "-c approval_policy=never -c model_provider=standin "
        '-c "model_providers.standin={name=\\"standin\\",base_url=\\"http://127.0.0.1:$PORT/v1\\",'
        'wire_api=\\"responses\\"}" '
        "-c model=stand-in -c check_for_update_on_startup=false -c analytics.enabled=false "
        "--disable plugins 'run them'; rc=$?; sleep 0.3; kill %1; exit $rc"
    )
    rc, _ = run_client(scratch / "run", script, client, {"CODEX_HOME": str(home),
                                                         "HOME": str(scratch)})  # fmt: skip
    assert rc == 0, dump(scratch / "run")
    rows = [r for line in posts.read_text().splitlines() for r in rows_of(json.loads(line))]
    expected = sorted((i for s in SITUATIONS for i in CODEX[s]),
                      key=lambda i: (i["signal"], i["name"], json.dumps(i, sort_keys=True)))
    got = sorted(shape(rows), key=lambda i: (i["signal"], i["name"], json.dumps(i, sort_keys=True)))
    assert got == expected, json.dumps({"codex": got, "fixture": expected}, indent=1)
    names = {r["resource"]["service.name"][1] for r in rows}
    assert names == {"codex_exec"}


# A person's answers, through the real app-server (the fixture's runs, live).
ANSWERED = {
    "o171-app-untrusted-accept": (["touch a.txt"], ["accept"]),
    "o171-app-untrusted-session": (["touch a.txt", "touch a.txt"], ["acceptForSession"]),
    "o171-app-untrusted-decline": (["touch a.txt"], ["decline"]),
}


@pytest.mark.parametrize("situation", list(ANSWERED))
def test_codex_app_server_exports_what_the_fixture_says(scratch: Path, situation: str) -> None:
    codex = realtools.codex(realtools.CODEX_VERSIONS[-1])
    home, ws = scratch / "codex-home", scratch / "ws"
    for d in (home, ws):
        d.mkdir(parents=True)
    url = "http://127.0.0.1:4318/v1"
    (home / "config.toml").write_text(
        f'[otel]\nexporter = {{ otlp-http = {{ endpoint = "{url}/logs", protocol = "json" }} }}\n'
        f'metrics_exporter = {{ otlp-http = {{ endpoint = "{url}/metrics", '
        'protocol = "json" } }\n')  # fmt: skip
    commands, answers = ANSWERED[situation]
    config, out = scratch / "config.json", scratch / "result.json"
    config.write_text(json.dumps({"codex": str(codex), "home": str(home), "ws": str(ws),
                                  "approvalPolicy": "untrusted", "commands": commands,
                                  "answers": answers}))  # fmt: skip
    env = {**os.environ, "HOME": str(scratch)}
    subprocess.run(["unshare", "-rn", sys.executable, str(HERE / "appserver_oracle.py"),
                    str(config), str(out)], env=env, check=True, timeout=200)  # fmt: skip
    result = json.loads(out.read_text())
    assert result["approvals"] == 1, result["approvals"]  # "for the session": asked once
    rows = [r for post in result["posts"] for r in rows_of(post)]
    assert shape(rows) == CODEX[situation], json.dumps(shape(rows), indent=1)
