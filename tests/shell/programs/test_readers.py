"""Each family's reader of `shell.programs`: what a command hands on to run, and nothing for
ordinary commands."""

from __future__ import annotations

import pytest

from shellgate.shell.programs import Handed, handed


def _shells(words: tuple[str, ...], env: dict[str, str | None] | None = None,
            stdin: str | None = None) -> list[str]:  # fmt: skip
    return [h.shell for h in handed(words, frozenset(), env or {}, None, stdin) if h.shell]


def _one(words: tuple[str, ...], **env: str) -> Handed:
    found = handed(words, frozenset(), env)
    assert len(found) == 1, found
    return found[0]


# --- the generic option reader: every spelling of an option ---------------------------------
@pytest.mark.parametrize(
    "words",
    [
        ("tar", "-xf", "a.tar", "--to-command=rm -rf b"),
        ("tar", "-xf", "a.tar", "--to-command", "rm -rf b"),
        ("tar", "-xf", "a.tar", "--to-comm=rm -rf b"),  # getopt's unambiguous prefix
        ("tar", "-I", "rm -rf b"),
        ("tar", "-Irm -rf b"),
        ("tar", "-xvI", "rm -rf b"),  # glued short options
        ("tar", "-cf", "/dev/null", "f", "--checkpoint-action=exec=rm -rf b"),
        ("zip", "x.zip", "f", "-T", "-TT", "rm -rf b"),
        ("zip", "x.zip", "f", "--unzip-command", "rm -rf b"),
        ("ssh", "-o", "ProxyCommand=rm -rf b", "h"),
        ("ssh", "-oProxyCommand=rm -rf b", "h"),
        ("ssh", "-o", "proxycommand rm -rf b", "h"),
        ("ssh", "-v", "h", "rm -rf b"),  # the remote command: shell source
        ("rsync", "-e", "rm -rf b", "x:y", "."),
        ("apt-get", "update", "-o", "APT::Update::Pre-Invoke::=rm -rf b"),
        ("certbot", "renew", "--pre-hook", "rm -rf b"),
        ("man", "-H", "rm -rf b", "ls"),
        ("latexmk", "-pdflatex=rm -rf b", "x.tex"),
        ("restic", "backup", "--password-command=rm -rf b"),
        ("split", "--filter=rm -rf b", "f"),
        ("yt-dlp", "u", "--exec", "rm -rf b"),
        ("ssh", "-o", "LocalCommand=rm -rf b", "-o", "PermitLocalCommand=yes", "h"),
    ],
)
def test_an_option_s_shell_source(words: tuple[str, ...]) -> None:
    assert "rm -rf b" in _shells(words)


def test_an_option_value_decided_at_run_time_is_asked() -> None:
    found = handed(("tar", "-xf", "a", '--to-command="$C"'), frozenset({3}), {})
    assert [h.runtime is not None for h in found] == [True]


@pytest.mark.parametrize(
    ("words", "argv"),
    [
        (("aoss", "rm", "-rf", "b"), ("rm", "-rf", "b")),
        (("chrt", "1", "rm", "b"), None),  # chrt is one of bash_runs' runners, not the table's
        (("ip", "netns", "exec", "ns", "rm", "b"), ("rm", "b")),
        (("npm", "exec", "rm", "b"), ("rm", "b")),
        (("capsh", "--", "-c", "rm b"), ("bash", "-c", "rm b")),
        (("setarch", "-3", "rm", "b"), ("rm", "b")),
        (("setarch", "x86_64", "rm", "b"), ("rm", "b")),
        (("service", "../../bin/rm"), ("/etc/init.d/../../bin/rm",)),
        (("docker", "run", "--rm", "-v", "/:/m", "alpine", "rm", "b"), ("rm", "b")),
        (("gcc", "-wrapper", "rm,-rf", "x.c"), ("rm", "-rf")),
        (("tcpdump", "-z", "rm", "-w", "x"), ("rm",)),
        (("gdb", "-batch", "--args", "rm", "b"), ("rm", "b")),
    ],
)
def test_a_runner_s_command(words: tuple[str, ...], argv: tuple[str, ...] | None) -> None:
    got = [h.argv for h in handed(words, frozenset(), {}) if h.argv]
    assert (argv in got) if argv else not got, got


# --- the environment -----------------------------------------------------------------------
def test_the_environment_of_any_program() -> None:
    assert _one(("ls",), LD_PRELOAD="./x.so").runtime is not None
    assert _one(("bash", "-c", "true"), BASH_ENV="./e.sh").runtime is not None
    assert _one(("crontab", "-e"), VISUAL="rm -rf b").shell == "rm -rf b"
    assert _one(("less", "f"), LESSOPEN="|rm -rf b %s").shell == "rm -rf b FILE"
    assert _one(("perl", "x.pl"), PERL5OPT="-Mevil").runtime is not None
    assert _one(("node", "x.js"), NODE_OPTIONS="--require ./evil.js").runtime is not None
    function = _one(("bash", "-c", "x"), **{"BASH_FUNC_x%%": "() { rm -rf b; }"})
    assert function.shell is not None and "rm -rf b" in function.shell
    assert _one(("restic", "backup"), RESTIC_PASSWORD_COMMAND="rm -rf b").shell == "rm -rf b"
    runtime = handed(("ls",), frozenset(), {"PAGER": None})
    assert [h.runtime is not None for h in runtime] == [True]


ORDINARY_ENV = [{"ENV": "production"}, {"PERL5OPT": "-w"}, {"PYTHONSTARTUP": "x.py"},
                {"NODE_OPTIONS": "--max-old-space-size=4096"}, {"EDITOR": ""}]  # fmt: skip


@pytest.mark.parametrize("env", ORDINARY_ENV)
def test_ordinary_variables_hand_nothing(env: dict[str, str | None]) -> None:
    assert handed(("npm", "start"), frozenset(), env) == ()


# --- inline programs ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "words",
    [
        ("python3", "-c", "import os; os.system('rm -rf b')"),
        ("python3", "-Ic", "import os as o; o.popen('rm -rf b')"),
        ("python3", "-c", "from subprocess import run; run('rm -rf b', shell=True)"),
        ("python3", "-c", "__import__('os').system('rm -rf b')"),
        ("python3", "-c", "exec(\"import os; os.system('rm -rf b')\")"),
        ("perl", "-e", 'system("rm -rf b")'),
        ("perl", "-e", "exec 'rm -rf b'"),
        ("perl", "-e", "print `rm -rf b`"),
        ("perl", "-e", "qx{rm -rf b}"),
        ("perl", "-e", 'open(F, "rm -rf b |")'),
        ("perl", "-le", 'system "rm -rf b"'),
        ("ruby", "-e", 'system("rm -rf b")'),
        ("ruby", "-e", "%x(rm -rf b)"),
        ("ruby", "-e", 'IO.popen("rm -rf b")'),
        ("node", "-e", 'require("child_process").execSync("rm -rf b")'),
        ("node", "-e", "const cp = require('child_process'); cp.exec('rm -rf b')"),
        ("php", "-r", 'system("rm -rf b");'),
        ("php", "-r", 'echo shell_exec("rm -rf b");'),
        ("lua", "-e", 'os.execute("rm -rf b")'),
        ("R", "-e", 'system("rm -rf b")'),
        ("julia", "-e", "run(`rm -rf b`)"),
        ("guile", "-c", '(system "rm -rf b")'),
        ("emacs", "--eval", '(shell-command "rm -rf b")'),
        ("awk", 'BEGIN {system("rm -rf b")}'),
        ("gawk", '{ print | "rm -rf b" }'),
        ("mawk", 'BEGIN { "rm -rf b" | getline x }'),
        ("awk", "-F:", "-v", "x=1", 'BEGIN {system("rm -rf b")}', "f"),
        ("sed", "-n", "1e rm -rf b", "f"),
        ("sed", "-e", "s/a/b/", "-e", "$e rm -rf b", "f"),
        ("sed", "/x/ { e rm -rf b\n}", "f"),
    ],
)
def test_inline_code_that_runs_a_command(words: tuple[str, ...]) -> None:
    assert "rm -rf b" in _shells(words), handed(words, frozenset(), {})


def test_python_s_argv_forms() -> None:
    argvs = [
        h.argv
        for code in (
            "import subprocess; subprocess.run(['rm', '-rf', 'b'])",
            "import os; os.execvp('rm', ['rm', '-rf', 'b'])",
            "import os; os.execl('/bin/rm', 'rm', '-rf', 'b')",
            "import pty; pty.spawn(['rm', '-rf', 'b'])",
        )
        for h in handed(("python3", "-c", code), frozenset(), {})
    ]
    assert argvs == [("rm", "-rf", "b"), ("rm", "-rf", "b"), ("/bin/rm", "-rf", "b"),
                     ("rm", "-rf", "b")]  # fmt: skip


def test_python_reads_a_here_document() -> None:
    assert _shells(("python3",), stdin="import os\nos.system('rm -rf b')\n") == ["rm -rf b"]
    assert _shells(("python3", "-"), stdin="import os\nos.system('rm -rf b')\n") == ["rm -rf b"]


@pytest.mark.parametrize(
    "words",
    [
        ("python3", "-c", "import os; os.system(cmd)"),
        ("python3", "-c", "import subprocess; subprocess.run(['rm', x])"),
        ("python3", "-c", "exec(code)"),
        ("perl", "-e", "system($cmd)"),
        ("perl", "-e", 'system("rm $x")'),
        ("ruby", "-e", 'system("rm #{x}")'),
        ("awk", "{system($0)}"),
        ("awk", "{print | cmd}"),
        ("sed", "s/x/y/e", "f"),
        ("sed", "e", "f"),
        ("vim", "-S", "x.vim"),
        ("gdb", "-x", "cmds"),
        ("gawk", "-l", "ext", "{}"),
    ],
)
def test_a_command_built_at_run_time_is_asked(words: tuple[str, ...]) -> None:
    found = handed(words, frozenset(), {})
    assert found and all(h.runtime is not None for h in found), found


@pytest.mark.parametrize(
    "words",
    [
        ("awk", "{print $1}", "f"),
        ("awk", "-F|", "{print $2}"),
        ("awk", "/a|b/ {print}"),
        ("awk", '$1 == "a|b"', "f"),
        ("awk", "a || b"),
        ("sed", "-n", "1,5p", "f"),
        ("sed", "-i", "s/foo/bar/g; /^e/d", "f"),
        ("sed", "1i hello e", "f"),
        ("sed", "-E", "s/(e)/\\1/g", "f"),
        ("python3", "-c", "print(1)"),
        ("python3", "-c", "import os; print(os.getcwd())"),
        ("python3", "-m", "pytest"),
        ("perl", "-ne", "print if /system/", "f"),
        ("perl", "-pi", "-e", "s/x/y/", "f"),
        ("node", "-e", "console.log(1)"),
        ("ruby", "-e", "puts 1"),
        ("vim", "-c", "set nu", "f"),
        ("vim", "-c", "wq!", "f"),
        ("tar", "-czf", "x.tgz", "d"),
        ("git", "status"),
        ("ssh", "h"),
        ("make", "-j4", "test"),
        ("gdb", "-batch", "-ex", "bt", "prog"),
        ("sqlite3", "db", "select 1"),
        ("mysql", "-e", "select 1"),
        ("npm", "install"),
        ("docker", "run", "-it", "alpine"),
        ("zip", "-r", "x.zip", "d"),
    ],
)
def test_ordinary_commands_hand_nothing(words: tuple[str, ...]) -> None:
    assert handed(words, frozenset(), {}) == (), handed(words, frozenset(), {})


# --- command languages -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "words",
    [
        ("vim", "-es", "-c", "!rm -rf b", "-c", "qa!"),
        ("vim", "-es", "+!rm -rf b", "+qa!"),
        ("vi", "-c", ":!rm -rf b", "/dev/null"),
        ("ex", "-c", "w !rm -rf b"),
        ("vim", "-c", "call system('rm -rf b')"),
        ("vim", "-c", "py3 import os; os.system('rm -rf b')"),
        ("gdb", "-batch", "-ex", "!rm -rf b"),
        ("gdb", "-nx", "-ex", "shell rm -rf b", "-ex", "quit"),
        ("gdb", "-ex", "python import os; os.system('rm -rf b')"),
        ("sqlite3", ":memory:", ".shell rm -rf b"),
        ("sqlite3", "db", "-cmd", ".system rm -rf b"),
        ("socat", "-", "SYSTEM:rm -rf b"),
        ("socat", "-", "exec:rm -rf b,pty,ctty"),
        ("make", "-f", "/dev/null", "--eval=x: ; rm -rf b"),
        ("make", "--eval", "$(shell rm -rf b)"),
        ("mysql", "-e", "\\! rm -rf b"),
        ("mysql", "-e", "system rm -rf b"),
        ("psql", "-c", "\\! rm -rf b"),
        ("dc", "-e", "!rm -rf b"),
        ("lftp", "-c", "!rm -rf b"),
        ("mail", "--exec=!rm -rf b"),
        ("fzf", "--bind", "enter:execute(rm -rf b)"),
        ("hg", "--config", "alias.x=!rm -rf b", "x"),
        ("rpm", "--eval", "%(rm -rf b)"),
        ("pdflatex", "--shell-escape", "\\immediate\\write18{rm -rf b}"),
        ("sysctl", "kernel.core_pattern=|rm -rf b"),
    ],
)
def test_a_command_language_s_shell_escape(words: tuple[str, ...]) -> None:
    assert "rm -rf b" in _shells(words), handed(words, frozenset(), {})
