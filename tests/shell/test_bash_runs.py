"""`shell.bash_runs`: the simple commands bash would execute, with their words as bash sees
them; `shell.global_options`: git's options before the subcommand."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from shellgate.shell.bash_runs import MAX_RUNS, UNKNOWABLE, argv_runs, bash_runs, read_word
from shellgate.shell.global_options import canonical_words

# (script, the words of a command bash runs there)
RUNS = [
    (r"\rm -rf x", ("rm", "-rf", "x")),
    (r"r\m -rf x", ("rm", "-rf", "x")),
    ('"rm" -rf x', ("rm", "-rf", "x")),
    ("'r'm -rf x", ("rm", "-rf", "x")),
    ("$'rm' -rf x", ("rm", "-rf", "x")),
    (r"$'\x72m' -rf x", ("rm", "-rf", "x")),
    (r"$'\162\x6d' x", ("rm", "x")),
    (r"$'\u0072m' x", ("rm", "x")),
    ('$"rm" -rf x', ("rm", "-rf", "x")),
    ("{rm,-rf,x}", ("rm", "-rf", "x")),
    ("echo a{b,c}d", ("echo", "abd", "acd")),
    ("echo {1..3}", ("echo", "1", "2", "3")),
    ("echo '{a,b}' \\{c,d}", ("echo", "{a,b}", "{c,d}")),
    ("rm${IFS}-rf${IFS}x", ("rm", "-rf", "x")),
    ("ec\\\nho hi", ("echo", "hi")),
    ('echo "a\\"b" \'c\\d\'', ("echo", 'a"b', "c\\d")),
    ("( \\rm -rf x )", ("rm", "-rf", "x")),
    ("f() { rm -rf x; }; f", ("rm", "-rf", "x")),
    ("coproc rm -rf x", ("rm", "-rf", "x")),
    ("builtin command rm x", ("rm", "x")),
    ("env -i A=1 -u B rm x", ("rm", "x")),
    ("timeout -s KILL 5 rm x", ("rm", "x")),
    ("nice -n 5 ionice -c 3 rm x", ("rm", "x")),
    ("sudo -u root doas rm x", ("rm", "x")),
    ("busybox rm x", ("rm", "x")),
    ("watch -n 1 'rm x'", ("rm", "x")),
    ("watch -x rm x", ("rm", "x")),
    ("flock f -c 'rm x'", ("rm", "x")),
    ("su -c 'rm x' root", ("rm", "x")),
    ("script -qc 'rm x' /dev/null", ("rm", "x")),
    ("sh -c 'bash -c \"rm x\"'", ("rm", "x")),
    ("bash <<< 'rm x'", ("rm", "x")),
    ("echo 'rm x' | sh", ("rm", "x")),
    ("printf 'ls\\nrm x\\n' | bash", ("rm", "x")),
    ("bash -s <<'E'\nrm x\nE", ("rm", "x")),
    ("sh <<-E\n\trm x\n\tE", ("rm", "x")),
    ("cat <<'E' | sh\nrm x\nE", ("rm", "x")),
    ("eval 'rm x'", ("rm", "x")),
    ("trap 'rm x' EXIT", ("rm", "x")),
    ("find . -exec rm {} +", ("rm", "{}")),
    ("git -C . -c a=b --no-pager push", ("git", "push")),
    ("ls | cat\nrm x && true", ("rm", "x")),
    ("r\\ m x", ("r m", "x")),
    ("cp My\\ File.txt a\\ \\ b \\ c", ("cp", "My File.txt", "a  b", " c")),
]


@pytest.mark.parametrize(("script", "words"), RUNS)
def test_bash_runs_finds_the_command(script: str, words: tuple[str, ...]) -> None:
    runs = bash_runs(script)
    assert words in [r.words for r in runs], runs


@pytest.mark.parametrize(
    ("script", "words"), [r for r in RUNS if "{}" not in r[1] and " " not in r[1][0]]
)
def test_the_words_are_those_real_bash_passes(
    script: str, words: tuple[str, ...], tmp_path: Path
) -> None:
    """Real bash, with every program a function that prints its argv: the words bash_runs
    finds are the ones bash passes (where bash runs them in this process)."""
    if any(s in script for s in ("sh -c", "| sh", "| bash", "bash ", "sh <", "su ", "sudo",
                                 "script ", "flock", "watch", "busybox", "timeout", "nice",
                                 "env ", "find ", "git ", "coproc", "trap ", "command",
                                 "builtin")):  # fmt: skip
        pytest.skip("runs in another process: covered by the corpus against real bash")
    stub = (
        f"{words[0]}() {{ printf '%s\\0' \"$FUNCNAME\" \"$@\"; }}; "
        "command_not_found_handle() { :; }; "
    )
    # no PATH, in an empty folder: nothing but the stub can run
    out = subprocess.run(
        ["/bin/bash", "-c", stub + script], capture_output=True, timeout=10, check=False,
        cwd=tmp_path, env={"PATH": str(tmp_path / "none")},
    ).stdout  # fmt: skip
    seen = out.decode("utf-8", "surrogateescape").split("\0")[:-1]
    assert tuple(seen[: len(words)]) == words, (script, seen)


UNKNOWN = [
    "$CMD x", "${CMD} x", "$(echo rm) x", "`echo rm` x", "r* x", "alias x='rm y'",
    'eval "$S"', "source <(echo rm)", ". /dev/stdin", "bash <(echo rm)", "curl u | sh",
    "bash <<E\nrm $X\nE", "timeout 5 $CMD", "if then fi (", "IFS=,; rm${IFS}x",
]


@pytest.mark.parametrize("script", UNKNOWN)
def test_what_bash_decides_at_run_time_is_unknowable(script: str) -> None:
    assert any(r.unknowable for r in bash_runs(script)), bash_runs(script)
    assert UNKNOWABLE == "bash decides this command at run time"


def test_run_time_arguments_are_marked() -> None:
    (run,) = bash_runs('git commit -m "$MSG"')
    assert run.dynamic == {3} and run.words[:3] == ("git", "commit", "-m")
    (_, inner) = bash_runs("xargs rm")
    assert inner.words == ("rm",) and inner.open_tail and inner.via == ("xargs",)
    assert bash_runs("ls *.py")[0].dynamic == {1}


def test_argv_runs_reads_an_argv_run_directly() -> None:
    runs = argv_runs(["sudo", "sh", "-c", "rm x; ls"])
    assert [r.words for r in runs] == [
        ("sudo", "sh", "-c", "rm x; ls"), ("sh", "-c", "rm x; ls"), ("rm", "x"), ("ls",)
    ]  # fmt: skip
    assert runs[2].via == ("sudo", "sh -c")
    assert argv_runs([]) == ()


def test_read_word() -> None:
    assert read_word("'a b'").fields == [("a b", False)]
    assert read_word("a$X").fields == [("a$X", True)]
    assert read_word("x{1..200}").fields == [("x{1..200}", True)]  # too many: run-time
    expanded = [(w, False) for w in ("a", "c", "a", "d", "b", "c", "b", "d")]
    assert read_word("{a,b}$IFS{c,d}").fields == expanded


def test_the_work_is_bounded() -> None:
    runs = bash_runs("ls;" * (MAX_RUNS + 50))
    assert len(runs) == MAX_RUNS and runs[-1].unknowable
    deep = "eval " * 12 + "rm x"
    assert any(r.unknowable and "deep" in r.unknowable for r in bash_runs(deep))
    quoted = "x"
    for _ in range(12):  # each level's quoting grows the word: past MAX_WORD it is run-time
        quoted = f"sh -c {shlex.quote(quoted)}"
    assert any(r.unknowable for r in bash_runs(quoted))
    assert bash_runs("echo " + "a" * (2 << 20))[0].unknowable  # past MAX_SCRIPT: not read


def test_git_global_options() -> None:
    assert canonical_words(["git", "-C", ".", "push", "-f"]) == (("git", "push", "-f"), 3)
    assert canonical_words(["/usr/bin/git", "--no-pager", "-cx=y", "log"]) == (
        ("/usr/bin/git", "log"), 3)  # fmt: skip
    assert canonical_words(["git", "push"]) is None
    assert canonical_words(["git", "-C", "."]) is None
    assert canonical_words(["ls", "-C", "x"]) is None


def test_a_coproc_in_a_command_substitution_also_runs_coproc_named() -> None:
    """bash 5.2 re-reads `$(…; coproc CMD)` with the coproc's name written in and runs `COPROC
    CMD` (differential seed 1819842003); both are listed."""
    runs = [r.words for r in bash_runs("pwd $(echo a; coproc rm -rf z)")]
    assert ("COPROC", "rm", "-rf", "z") in runs and ("rm", "-rf", "z") in runs


def test_an_escaped_blank_starting_a_line_tree_sitter_glues_on_stays_in_the_word() -> None:
    """`npm test<newline> \\<tab>wc -l`: tree-sitter glues `wc -l` onto `npm test`; bash runs
    `<tab>wc -l`, the escaped tab part of its name (differential seed 637236584)."""
    found = [r.words for r in bash_runs("echo hi | npm test\n \\\twc -l || npm test")]
    assert ("\twc", "-l") in found and ("wc", "-l") not in found


@pytest.mark.parametrize("script,expected", [
    # an escaped blank, then a blank, on a line tree-sitter glues on: a word of its own
    ("pwd && cat a\n\\\t ls -la", ("\t", "ls", "-la")),  # seed 319730861
])  # fmt: skip
def test_escaped_blanks_on_a_glued_line_are_words(script: str, expected: tuple[str, ...]) -> None:
    assert expected in [r.words for r in bash_runs(script)]


@pytest.mark.parametrize("script", [
    "A=1\\\nwc -l || curl evil",  # bash runs `-l` (seed 487433106)
    "git status & [ab]\nsudo rm -rf y",  # bash runs the glob `[ab]` (seed 931601461)
    "[\\ ab ]",
])  # fmt: skip
def test_what_bash_reads_otherwise_is_asked(script: str) -> None:
    assert any(r.unknowable for r in bash_runs(script)), script


@pytest.mark.parametrize("script", ["[ -f x ] && ls", "[[ $a == b ]] || ls", "[\tx ]",
                                    "A=1 wc -l", "A=1 \\\nwc"])  # fmt: skip
def test_tests_and_assignments_are_read_plainly(script: str) -> None:
    assert not any(r.unknowable for r in bash_runs(script)), script
