"""The local record: appended under a lock, chained by hashes, listed and verified by the real
`shellgate log` process; an edited, removed, reordered or torn entry is found and named, and
many writers at once leave a whole chain."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shellgate.record import chain, verify
from shellgate.record.entry import Entry
from shellgate.record.sink import record


def shellgate(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    return subprocess.run([sys.executable, "-m", "shellgate", "log", *args], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def fill(state: Path, n: int = 5) -> Path:
    env = {"XDG_STATE_HOME": str(state), "HOME": str(state)}
    agents = ["claude-code", "gemini", "mcp", "run", "codex"]
    decisions = ["approved", "forbidden", "denied", "approved_for_session", "deferred"]
    for i in range(n):
        record(Entry(agents[i % 5], f"echo {i}", "/w", decisions[i % 5], "rules",
                     time=1_700_000_000 + i * 3600), env)  # fmt: skip
    return state / "shellgate" / "decisions.jsonl"


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def test_a_whole_chain_verifies_and_the_files_are_private(tmp_path: Path) -> None:
    log = fill(tmp_path)
    done = shellgate(tmp_path, "verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 entries, 1..5, the chain is whole" in done.stdout
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    first = json.loads(lines_of(log)[0])
    assert first["seq"] == 1 and first["prev"] == chain.GENESIS
    assert first["hash"] == chain.digest(1, chain.GENESIS, first["entry"])


def test_an_edited_entry_is_named(tmp_path: Path) -> None:
    log = fill(tmp_path)
    rows = lines_of(log)
    edited = json.loads(rows[2])
    edited["entry"]["decision"] = "approved"  # someone turns a refusal into a yes
    rows[2] = json.dumps(edited, separators=(",", ":")) + "\n"
    log.write_text("".join(rows))
    done = shellgate(tmp_path, "verify")
    assert done.returncode == 1
    assert f"{log}:3: entry 3: edited" in done.stdout, done.stdout


def test_a_removed_entry_is_found(tmp_path: Path) -> None:
    log = fill(tmp_path)
    rows = lines_of(log)
    del rows[1]
    log.write_text("".join(rows))
    done = shellgate(tmp_path, "verify")
    assert done.returncode == 1
    assert f"{log}:2: entry 3: entries between 1 and 3 were removed" in done.stdout, done.stdout


def test_reordered_entries_are_found(tmp_path: Path) -> None:
    log = fill(tmp_path)
    rows = lines_of(log)
    rows[1], rows[2] = rows[2], rows[1]
    log.write_text("".join(rows))
    done = shellgate(tmp_path, "verify")
    assert done.returncode == 1
    assert f"{log}:2: entry 3:" in done.stdout, done.stdout


def test_entries_cut_off_the_end_are_found(tmp_path: Path) -> None:
    log = fill(tmp_path)
    log.write_text("".join(lines_of(log)[:3]))
    done = shellgate(tmp_path, "verify")
    assert done.returncode == 1
    assert "entries after 3 up to 5 were removed from the end" in done.stdout, done.stdout


def test_a_torn_line_is_named_and_the_next_append_goes_on(tmp_path: Path) -> None:
    log = fill(tmp_path, 3)
    with log.open("a") as fh:
        fh.write('{"seq":4,"prev":"ab')  # a crash mid-line
    done = shellgate(tmp_path, "verify")
    assert done.returncode == 1 and f"{log}:4: a line: not a whole entry" in done.stdout
    record(Entry("gemini", "echo after", "/w", "approved", "rules"),
           {"XDG_STATE_HOME": str(tmp_path)})  # fmt: skip
    after = json.loads(lines_of(log)[-1])
    assert after["seq"] == 4 and after["entry"]["command"] == "echo after"
    assert shellgate(tmp_path, "verify").returncode == 1  # the torn line stays named


def test_rotation_keeps_the_chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELLGATE_LOG_MAX_BYTES", "2000")
    fill(tmp_path, 30)
    folder = tmp_path / "shellgate"
    kept = sorted(p.name for p in folder.glob("decisions*.jsonl"))
    assert kept == ["decisions.1.jsonl", "decisions.2.jsonl", "decisions.3.jsonl",
                    "decisions.jsonl"], kept  # fmt: skip
    verdict = verify.verify(str(folder))
    assert verdict.broken is None and verdict.last_seq == 30
    assert verdict.first_seq is not None and verdict.first_seq > 1  # the oldest went away
    done = shellgate(tmp_path, "verify")
    assert done.returncode == 0 and "older ones rotated away" in done.stdout, done.stdout


def test_the_listing_filters(tmp_path: Path) -> None:
    fill(tmp_path, 10)
    listed = shellgate(tmp_path, "--json", "--agent", "gemini")
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["command"] for r in rows] == ["echo 1", "echo 6"]
    assert all(r["decision"] == "forbidden" and r["hash"] for r in rows)
    yes = shellgate(tmp_path, "--json", "--decision", "approved*")
    assert {json.loads(line)["decision"] for line in yes.stdout.splitlines()} == {
        "approved", "approved_for_session"}  # fmt: skip
    since = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(1_700_000_000 + 7 * 3600))
    late = shellgate(tmp_path, "--json", "--since", since)
    assert [json.loads(line)["command"] for line in late.stdout.splitlines()] == [
        "echo 7", "echo 8", "echo 9"]  # fmt: skip
    grep = shellgate(tmp_path, "--grep", "echo 3")
    assert "echo 3" in grep.stdout and "echo 4" not in grep.stdout
    assert shellgate(tmp_path, "--decision", "maybe").returncode == 2


_WRITER = """
import sys
from shellgate.record.entry import Entry
from shellgate.record.sink import record
for i in range(int(sys.argv[2])):
    record(Entry("claude-code", f"w{sys.argv[1]}-{i}", "/w", "approved", "rules"))
"""


def test_many_writers_at_once_leave_a_whole_chain(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    writers, each = 8, 40
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(w), str(each)], env=env)
             for w in range(writers)]  # fmt: skip
    assert all(p.wait(timeout=120) == 0 for p in procs)
    verdict = verify.verify(str(tmp_path / "shellgate"))
    assert verdict.broken is None, verdict.broken
    assert (verdict.whole, verdict.first_seq, verdict.last_seq) == (320, 1, 320)
    commands = [ln.entry["entry"]["command"] for ln in verify.lines(str(tmp_path / "shellgate"))
                if ln.entry]  # fmt: skip
    assert sorted(commands) == sorted(f"w{w}-{i}" for w in range(writers) for i in range(each))


def test_the_json_listing_follows_its_schema(tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "rules-schema" / "log.schema.json")
                        .read_text())  # fmt: skip
    env = {"XDG_STATE_HOME": str(tmp_path)}
    record(Entry("mcp", "touch a", "/w", "approved_with_amendment", "person", session_id="s",
                 rule={"pattern": "touch", "decision": "prompt", "file": "/r", "line": 2,
                       "layer": "user"}, sandbox="workspace-write", sandbox_outcome="denied",
                 initial_duration_ms=3, output="", exit_code=1, duration_ms=9, asked=True,
                 amendment='prefix_rule(pattern=["touch"], decision="allow")'), env)  # fmt: skip
    fill(tmp_path, 5)
    listed = shellgate(tmp_path, "--json")
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert len(rows) == 6
    for row in rows:
        jsonschema.validate(row, schema)


def test_a_huge_command_is_cut_and_marked(tmp_path: Path) -> None:
    huge = "echo " + "a" * 200_000
    entry_in = Entry("claude-code", huge, "/w", "approved", "rules",
                     arguments=json.dumps({"command": huge}))
    record(entry_in, {"XDG_STATE_HOME": str(tmp_path)})
    log = tmp_path / "shellgate" / "decisions.jsonl"
    entry = json.loads(log.read_text())["entry"]
    assert entry["truncated"] is True and len(entry["command"]) == len(entry["arguments"]) == 65536
    assert log.stat().st_size < 200_000
