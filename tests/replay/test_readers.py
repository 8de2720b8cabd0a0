"""Each reader on a file the real tool wrote (fixtures/README.md), and on broken input."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from shellgate.replay.model import HistoryCommand, ReadStats
from shellgate.replay.readers import reader_for
from shellgate.replay.sources import default_sources, guess_format, parse_source, read_sources

FIX = Path(__file__).parent / "fixtures"


def read(fmt: str, path: Path | str) -> tuple[list[HistoryCommand], ReadStats]:
    stats = ReadStats()
    return list(reader_for(fmt)(str(path), stats)), stats


def one(pattern: str) -> Path:
    (found,) = glob.glob(str(FIX / pattern), recursive=True)
    return Path(found)


def test_bash_without_timestamps() -> None:
    cmds, stats = read("bash", FIX / "bash" / ".bash_history")
    assert [c.command for c in cmds] == ["git status --short", "ls", "exit"]
    assert [c.line for c in cmds] == [1, 2, 3]
    assert all(c.time is None and c.cwd is None for c in cmds)
    assert stats.skipped == 0 and stats.entries == 3


def test_bash_with_histtimeformat_stamps_keeps_multi_line_entries() -> None:
    cmds, _ = read("bash", FIX / "bash-timestamps" / ".bash_history")
    assert [c.command for c in cmds] == [
        "git status --short", "ls -la | head -3", 'echo "two\nlines"', "rm -rf build", "exit"]
    assert cmds[2].line == 6 and cmds[2].time == 1796156271.0


def test_zsh_extended_history_multi_line_and_utf8() -> None:
    cmds, stats = read("zsh", FIX / "zsh" / ".zsh_history")
    texts = [c.command for c in cmds]
    assert 'echo "two\nlines"' in texts and "echo héllo" in texts and "rm -rf build" in texts
    assert cmds[0].time == 1796156257.0
    assert stats.skipped == 0


def test_zsh_metafied_bytes_are_decoded() -> None:
    # Real zsh wrote `echo ăȃ` (c4 83, c8 83) with each 0x83 metafied: 0x83, then 0x83 ^ 32.
    raw = (FIX / "zsh" / ".zsh_history").read_bytes()
    assert b"\xc4\x83\xa3" in raw
    cmds, _ = read("zsh", FIX / "zsh" / ".zsh_history")
    assert cmds[-1].command == "echo ăȃ"


def test_fish_history_unescapes_and_skips_paths() -> None:
    cmds, stats = read("fish", FIX / "fish" / "fish_history")
    assert [c.command for c in cmds] == [
        "git status --short", 'echo "two\nlines"', "cat a.txt", "echo back\\\\slash",
        "rm -rf build"]
    assert cmds[0].time == 1796156271.0 and stats.skipped == 0


def test_codex_rollout_with_an_escalated_call() -> None:
    cmds, stats = read("codex", one("codex/sessions/**/rollout-*.jsonl"))
    assert [c.command for c in cmds] == ["git status --short", "touch sandboxed.txt && ls",
                                         "git init -q && touch escalated.txt", "rm -rf build"]
    escalated = cmds[2]
    assert escalated.sandbox_permissions == "require_escalated"
    assert escalated.justification == "Do you want me to initialise a git repo here?"
    assert all(c.cwd == "/tmp/rp/cx/out/ws" and c.time for c in cmds)
    assert stats.skipped == 0


def test_claude_code_transcript_bash_calls() -> None:
    cmds, _ = read("claude-code", one("claude/projects/*/*.jsonl"))
    assert [c.command for c in cmds] == ["git status --short", "echo hi > out.txt && cat out.txt",
                                         "ls -la"]
    assert cmds[0].cwd == "/tmp/rp/cc/runs/replay/ws" and cmds[0].source == "claude-code"


def test_gemini_chat_keeps_each_call_once() -> None:
    cmds, _ = read("gemini", one("gemini/tmp/ws/chats/*.jsonl"))
    # Two calls, each written twice as its message grew.
    assert [c.command for c in cmds] == ["git log --oneline -3"] * 2
    assert cmds[0].cwd == "/tmp/rp/gm/out/replay/ws"


def test_shellgate_transcript() -> None:
    cmds, _ = read("shellgate", one("shellgate/*.jsonl"))
    assert [c.command for c in cmds][:3] == ["ls -A", "find . -name '*.tmp'", "rm -rf build"]
    assert cmds[0].cwd == "/tmp/rp/sg/ws"


@pytest.mark.parametrize(("path", "fmt"), [
    ("bash/.bash_history", "bash"), ("zsh/.zsh_history", "zsh"), ("fish/fish_history", "fish"),
    ("codex/sessions/**/rollout-*.jsonl", "codex"), ("claude/projects/*/*.jsonl", "claude-code"),
    ("gemini/tmp/ws/chats/*.jsonl", "gemini"), ("shellgate/*.jsonl", "shellgate")])
def test_formats_are_recognised(path: str, fmt: str, tmp_path: Path) -> None:
    real = one(path)
    assert guess_format(str(real)) == fmt
    # Also by content alone, under a name that says nothing.
    anon = tmp_path / ("x.jsonl" if real.suffix == ".jsonl" else "x")
    anon.write_bytes(real.read_bytes())
    assert guess_format(str(anon)) == fmt


def test_a_folder_is_walked_and_every_format_read() -> None:
    stats = ReadStats()
    cmds = list(read_sources([parse_source(str(FIX))], stats))
    assert {c.source for c in cmds} == {"bash", "zsh", "fish", "codex", "claude-code", "gemini",
                                        "shellgate"}
    assert stats.files == 8 and stats.skipped == 0


def test_default_places(tmp_path: Path) -> None:
    (tmp_path / ".bash_history").write_text("ls\n")
    (tmp_path / "codex" / "sessions").mkdir(parents=True)
    env = {"HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "codex")}
    found = {(s.format, s.path) for s in default_sources(env)}
    assert found == {("bash", str(tmp_path / ".bash_history")),
                     ("codex", str(tmp_path / "codex" / "sessions"))}


def test_junk_is_skipped_counted_and_named(tmp_path: Path) -> None:
    rollout = one("codex/sessions/**/rollout-*.jsonl").read_bytes().splitlines(keepends=True)
    broken = tmp_path / "rollout-broken.jsonl"
    # a truncated JSON line, binary junk, bad UTF-8, a non-object line, then the rest.
    broken.write_bytes(b"".join(rollout[:9]) + rollout[9][:40] + b"\n" + b"\x00\x01\xff\xfe\n"
                       + b"[1, 2]\n" + b"".join(rollout[10:]))
    cmds, stats = read("codex", broken)
    assert [c.command for c in cmds] == ["touch sandboxed.txt && ls",
                                         "git init -q && touch escalated.txt", "rm -rf build"]
    assert stats.skipped == 3
    assert stats.named == [f"{broken}:10: not a JSON line (truncated?)",
                           f"{broken}:11: binary data",
                           f"{broken}:12: a JSON line that is not an object"]


def test_shell_history_junk(tmp_path: Path) -> None:
    path = tmp_path / ".bash_history"
    path.write_bytes(b"ls\n\xff\xfe bad\n" + b"x" * (1 << 21) + b"\ngit status\n\x00\x00\n")
    cmds, stats = read("bash", path)
    assert [c.command for c in cmds] == ["ls", "git status"]
    assert stats.skipped == 3
    assert [n.split(": ", 1)[1] for n in stats.named] == [
        "not UTF-8", "line longer than 1 MiB", "binary data"]


def test_unreadable_and_missing_files_are_counted(tmp_path: Path) -> None:
    cmds, stats = read("zsh", tmp_path / "missing")
    assert cmds == [] and stats.skipped == 1 and "cannot read" in stats.named[0]
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked"
        locked.write_text("ls\n")
        locked.chmod(0)
        assert read("bash", locked)[1].skipped == 1


def test_first_few_named_the_rest_counted(tmp_path: Path) -> None:
    path = tmp_path / "fish_history"
    path.write_text("junk\n" * 50 + "- cmd: ls\n  when: 5\n")
    cmds, stats = read("fish", path)
    assert [c.command for c in cmds] == ["ls"] and stats.skipped == 50 and len(stats.named) == 5


def test_a_zsh_entry_cut_off_at_the_end(tmp_path: Path) -> None:
    path = tmp_path / ".zsh_history"
    path.write_bytes(b": 1:0;ls\n: 2:0;echo a\\\n")
    cmds, stats = read("zsh", path)
    assert [c.command for c in cmds] == ["ls"] and stats.skipped == 1
