"""Bad rules files are reported naming the file and, where there is one, the line and column of
the fault (issue 28, "Positions and names"): a NUL in code as Codex names it, a byte that is not
UTF-8 where it is, and no `:0:0:` for a file that cannot be read (a folder, a missing path),
from `explain --rules` and `import --write` as from the loader. Through the real `shellgate`
process, and against the real Codex where Codex reports the same file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import realtools
from shellgate.rules.errors import RulesError
from shellgate.rules.loader import load_policy, parse_text

NUL_IN_CODE = 'prefix_rule(pattern=["ls"])\nx = 1\0\n'


def shellgate(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, HOME=str(cwd), XDG_CACHE_HOME=str(cwd / ".cache"))
    proc = subprocess.run(
        [sys.executable, "-m", "shellgate", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    return proc


def load_error(path: Path) -> RulesError:
    with pytest.raises(RulesError) as raised:
        load_policy([path])
    return raised.value


def test_a_nul_in_code_is_the_nul_codex_names() -> None:
    err = parse_text(NUL_IN_CODE, "nul.rules").error
    assert err is not None
    assert (err.message, err.line, err.column) == ("Parse error: invalid input `\0`", 2, 6)
    assert str(err) == "nul.rules:2:6: Parse error: invalid input `\0`"


def test_a_nul_alone_on_a_line_is_at_its_column() -> None:
    err = parse_text('prefix_rule(pattern=["ls"])\n\0\n', "nul.rules").error
    assert err is not None and (err.line, err.column) == (2, 1)
    assert "invalid input `\0`" in err.message


@pytest.mark.parametrize("version", realtools.CODEX_VERSIONS)
def test_a_nul_is_reported_where_and_as_codex_reports_it(tmp_path: Path, version: str) -> None:
    codex = realtools.require(realtools.codex_path(version))
    (tmp_path / "nul.rules").write_text(NUL_IN_CODE)
    env = dict(os.environ, HOME=str(tmp_path), RUST_BACKTRACE="0")
    theirs = subprocess.run(
        [codex, "execpolicy", "check", "--rules", "nul.rules", "--", "ls"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=60,
    )
    ours = shellgate(tmp_path, "check", "--rules", "nul.rules", "--", "ls")
    assert (theirs.returncode, ours.returncode) == (1, 1)
    for out in (theirs.stderr, ours.stderr):
        assert b"Parse error: invalid input `\0`\n" in out, out
        assert b"--> nul.rules:2:6\n" in out, out


def test_a_nul_in_a_comment_or_a_string_is_read_as_codex_reads_it(tmp_path: Path) -> None:
    # Codex 0.169.0 and 0.171.0 load both: `{"matchedRules":[{"prefixRuleMatch":...`
    (tmp_path / "ok.rules").write_text(
        'prefix_rule(pattern=["ls"], justification="a\0b")\n# a comment with a \0\n'
    )
    ours = shellgate(tmp_path, "check", "--rules", "ok.rules", "--", "ls")
    assert ours.returncode == 0, ours.stderr
    assert b'"justification":"a\\u0000b"' in ours.stdout


def test_a_byte_not_utf8_is_at_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "latin1.rules"
    path.write_bytes(b'prefix_rule(pattern=["ls"])\nprefix_rule(pattern=["\xc3\xa9", "caf\xe9"])\n')
    err = load_error(path)
    # `é` before it (two bytes) is one column: the byte is the 31st character of line 2
    assert (err.code, err.line, err.column) == ("not-utf8", 2, 31)
    lint = shellgate(tmp_path, "lint", "latin1.rules")
    assert b"latin1.rules:2:31: error[not-utf8]" in lint.stdout, lint.stdout


def test_a_byte_not_utf8_on_the_first_line(tmp_path: Path) -> None:
    (tmp_path / "first.rules").write_bytes(b'prefix_rule(pattern=["ls", "c\xe9"])\n')
    err = load_error(tmp_path / "first.rules")
    assert (err.line, err.column) == (1, 30)


def test_a_file_that_cannot_be_read_has_no_position(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    for name, why in (("adir", "Is a directory"), ("missing.rules", "No such file or directory")):
        err = load_error(tmp_path / name)
        assert str(err) == f"{tmp_path / name}: {why} (os error {err.message.split()[-1][:-1]})"
        assert ":0:0" not in str(err)


@pytest.mark.parametrize(
    ("name", "why"), [("adir", "Is a directory"), ("missing.rules", "No such file or directory")]
)
def test_explain_names_the_file_it_cannot_read(tmp_path: Path, name: str, why: str) -> None:
    (tmp_path / "adir").mkdir()
    proc = shellgate(tmp_path, "explain", "--rules", name, "--", "ls")
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert f"shellgate explain: error: {name}: {why}" in err, err
    assert ":0:0" not in err


def test_import_write_to_a_folder_names_it(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    (tmp_path / "settings.json").write_text('{"permissions":{"allow":["Bash(ls:*)"]}}')
    proc = shellgate(tmp_path, "import", "claude-code", "settings.json", "--write", "adir")
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "shellgate import: adir: Is a directory" in err, err
    assert ":0:0" not in err
