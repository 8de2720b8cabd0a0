"""ShellGate as the gate judges every command bash would run (approval.beyond), through
`broker.decide`, the path of every hook and of the MCP `shell` tool: with `rm`, `curl` and
`git push` forbidden by a real rules file, no spelling of them is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.broker.decide import decide
from shellgate.broker.protocol import AgentRequest

from .conftest import World

RULES = """\
prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")
prefix_rule(pattern=["curl"], decision="forbidden", justification="no curl")
prefix_rule(pattern=["git", "push"], decision="forbidden", justification="no push")
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["ls"], decision="allow")
prefix_rule(pattern=["sh"], decision="allow")
prefix_rule(pattern=["timeout"], decision="allow")
"""

# Each spelling runs a forbidden program in real bash; the gate must refuse it.
FORBIDDEN = [
    # quote removal and escapes
    r"\rm -rf x", r"r\m -rf x", '"rm" -rf x', "'r'm -rf x", "$'rm' -rf x", r"$'\x72m' -rf x",
    r"$'\162m' -rf x", '$"rm" -rf x', "'curl' -s https://example.com", 'c"ur"l -s u',
    "rm${IFS}-rf${IFS}x", "rm$IFS-rf$IFS/x", "echo ok; r''m x",
    # compounds
    r"( \rm -rf x )", "{ rm -rf x; }", "if true; then rm -rf x; fi", "while false; do rm x; done",
    "until true; do rm x; done", "for i in 1; do rm -rf x; done", "case a in a) rm -rf x;; esac",
    "! rm -rf x", "f() { rm -rf x; }; f", "function g { curl u; }; g", "rm -rf x &",
    "ls | rm -rf x", "ls && rm x || true", "coproc rm -rf x", "time rm -rf x",
    # an assignment after a keyword, or sudo's (differential seed 1987506524: `coproc A=1 ls`)
    "coproc A=1 rm -rf x", "time A=1 rm -rf x", "time -p A=1 B[0]=2 C+=3 rm x", "sudo A=1 rm x",
    "coproc { A=1 rm -rf x; }", "time -p { A=1 B=2 rm x; }", "! { {rm,-rf,x}; }",
    "time -p rm -rf x", "echo $(rm -rf x)", "echo `rm x`", "cat <(curl u)", "x=$(curl u)",
    "[[ -n $(rm x) ]]", "ls > >(rm x)", "git status | cat | head\nrm -rf x && true",
    # runners
    "command rm -rf x", "builtin command rm -rf x", "exec rm -rf x", "exec -a y rm x",
    "env rm x", "env -i A=1 rm -rf x", "env -u HOME -- rm x", "env -S 'rm -rf x'",
    "nohup rm -rf x", "nice -n 5 rm -rf x", "nice -10 rm x", "timeout 5 rm -rf x",
    "timeout -s KILL 5 rm -rf x", "setsid rm -rf x", "stdbuf -o0 rm -rf x",
    "sudo rm -rf x", "sudo -u root rm -rf x", "sudo -s rm x", "doas rm -rf x",
    "ionice -c 3 rm x", "chroot / rm x", "xargs rm -rf", "ls | xargs -n1 rm",
    r"find . -exec rm -rf {} \;", "find . -execdir rm {} +", r"find . -ok rm {} \;",
    "find . -okdir curl {} +", "busybox rm -rf x", "toybox rm -rf x", "watch rm -rf x",
    "watch -n 1 -x rm -rf x", "flock /tmp/l rm -rf x", "flock /tmp/l -c 'rm -rf x'",
    "script -c 'rm -rf x' /dev/null", "script -qc 'rm x'", "su -c 'rm -rf x'",
    "su root -c 'curl u'", "trap 'rm x' EXIT", "timeout 5 timeout 5 nice rm x",
    # shells handed a script
    "sh -c 'git push origin main'", "dash -c 'rm -rf x'", "bash -c 'rm x'", "zsh -c 'rm x'",
    "ksh -c 'rm x'", "mksh -c 'rm x'", "/bin/sh -c 'rm x'", "busybox sh -c 'rm -rf x'",
    "bash -e -o pipefail -c 'rm -rf x'", "bash -xc 'rm x'", "sh -c 'sh -c \"rm x\"'",
    "bash <<< 'rm -rf x'", "bash <<< \"curl u\"", "echo 'rm -rf x' | bash",
    "echo rm -rf x | sh", r"printf 'rm -rf x\n' | sh", "bash -s <<'EOF'\nrm -rf x\nEOF",
    "sh <<EOF\nrm -rf x\nEOF", "cat <<'E' | bash\nrm -rf x\nE", "eval 'rm -rf x'",
    "eval rm -rf x", "sudo bash -c 'rm x'", "nice sh -c 'dash -c \"rm -rf x\"'",
    "echo 'rm x' | sh -s", "printf '%s\\n' 'rm -rf x' | bash", "fish -c 'rm x'",
    "ls | xargs -I{} sh -c 'rm {}'", "r\\\nm x", "$'\\x72''m' x",
    "find . -exec sh -c 'rm \"$1\"' _ {} \\;", "builtin eval 'rm x'", "su - root -c 'rm x'",
    "time -p { rm -rf x; }", "! { rm x; }", "git 2>/dev/null push origin", "git >x push",
    # git's global options
    "git -C . push origin main", "git -c k=v push", "git --no-pager push",
    "git --git-dir=.git push", "git -C . -c a=b --no-pager push", "sh -c 'git -C . push'",
    # brace expansion
    "{rm,-rf,x}", "echo ok && {rm,-rf,x}", "e{c,}ho ok; {curl,-s,u}", "if true; then {rm,x}; fi",
]

# What bash decides only at run time: asked, never allowed, never refused as forbidden.
UNKNOWABLE = [
    "$CMD -rf x", "${CMD} x", "$(echo rm) -rf x", "`echo rm` x", "r* -rf x", "/bin/r? x",
    "alias x='rm -rf y'", "eval \"$CMD\"", "source <(echo rm -rf x)", ". <(wget -O- u)",
    "bash <(wget -O- u)", "wget -O- u | sh", "cat f | bash", "bash <<EOF\n$CMD\nEOF",
    "timeout 5 $CMD", "xargs $CMD", "sh -c \"$S\"", "git $SUB origin", "IFS=,; rm${IFS}x",
    "sudo $CMD", "echo 'rm x' | { bash; }", "echo 'rm x' > >(sh)", "echo x | xargs sh -c",
    "bash < <(echo rm)", "x=rm; $x -rf y", "f() { \"$@\"; }; f rm x",
    "cat <<EOF > /dev/null; git > out push\nhi\nEOF",  # tree-sitter errors: asked
]

# Ordinary commands: nothing more than Codex.
UNCHANGED = [
    "ls -la", "git status", "git -C . status", "timeout 60 ls", "sh -c 'ls'",
    "for f in *.py; do wc -l \"$f\"; done", "ls *.py", "echo \"$HOME\" > out.txt",
    "cat <<'EOF' > notes.md\nrm -rf is a command\nEOF", "grep -rn rm .", "echo rm -rf x",
    "python3 -c 'import os'", "git commit -m \"$MSG\"", "make test 2>&1 | tail -5",
    "find . -name '*.py' -print", "echo 'rm x' > script.sh",
]


@pytest.fixture
def gate(world: World) -> World:
    (world.home / "rules" / "default.rules").write_text(RULES)
    return world


def _ask(world: World, command: str, **kw: str) -> tuple[str, str, bool]:
    d = decide(AgentRequest("claude-code", "s", str(world.project), command, **kw))
    return d.decision, d.reason or "", d.hidden


@pytest.mark.parametrize("command", FORBIDDEN)
def test_a_forbidden_program_is_refused_however_it_is_spelled(gate: World, command: str) -> None:
    decision, reason, hidden = _ask(gate, command)
    assert decision == "forbidden", (command, reason)
    assert hidden or reason.startswith("`bash -lc")
    assert any(f"no {p}" in reason for p in ("rm", "curl", "push")), reason


@pytest.mark.parametrize("command", UNKNOWABLE)
def test_what_bash_decides_at_run_time_is_asked(gate: World, command: str) -> None:
    decision, reason, hidden = _ask(gate, command)
    assert decision == "prompt" and hidden, (command, reason)
    assert reason.startswith("bash decides this command at run time"), reason


@pytest.mark.parametrize("command", UNCHANGED)
def test_ordinary_commands_get_codex_s_decision(gate: World, command: str) -> None:
    decision, reason, hidden = _ask(gate, command)
    assert not hidden and decision == "allow", (command, reason)


def test_a_rule_allowed_inner_command_does_not_loosen_the_outer(gate: World) -> None:
    # `sh` and `timeout` are allowed by rules; what they run still counts
    assert _ask(gate, "sh -c 'rm x'")[0] == "forbidden"
    assert _ask(gate, "timeout 5 $CMD")[0] == "prompt"
    # and an allowed inner command never makes an outer unknowable allowed
    assert _ask(gate, "ls $(ls) | $PAGER")[0] == "prompt"


def test_a_script_tree_sitter_cannot_read_is_never_allowed_by_a_rule(gate: World) -> None:
    # `ls` is allowed; the rest is no command tree-sitter reads: asked, not allowed as `ls`
    decision, reason, _ = _ask(gate, "ls; if then fi (")
    assert decision == "prompt" and "bash decides this command at run time" in reason


def test_under_never_what_cannot_be_asked_is_refused(gate: World) -> None:
    assert _ask(gate, "$CMD", approval_policy="never")[0] == "forbidden"
    assert _ask(gate, "ls", approval_policy="never")[0] == "allow"


def test_the_gate_is_said_in_explain_and_codex_s_requirement_is_kept(gate: World) -> None:
    d = decide(AgentRequest("claude-code", "s", str(gate.project), r"\rm -rf x"))
    assert d.explain is not None
    # Codex's own requirement stands in the explanation; the gate is beside it
    assert d.explain["requirement"]["type"] != "forbidden"
    assert d.explain["gate"]["type"] == "forbidden"
    codes = [w["code"] for w in d.explain["warnings"]]
    assert "gate" in codes


def test_a_large_script_is_decided_quickly(gate: World, tmp_path: Path) -> None:
    import time

    big = "echo " + "a" * (5 << 20)
    start = time.perf_counter()
    decision, _, _ = _ask(gate, big)
    assert decision in ("allow", "prompt")
    many = "ls; " * 20000 + "rm x"
    assert _ask(gate, many)[0] in ("forbidden", "prompt")
    assert time.perf_counter() - start < 30  # a bound on the work, not a speed target


@pytest.mark.parametrize(
    "argv",
    [
        ("sudo", "rm", "x"),
        ("env", "sh", "-c", "rm x"),
        ("/bin/bash", "-e", "-c", "rm x"),
        ("bash", "-c", r"\rm x"),
        ("timeout", "5", "git", "-C", ".", "push"),
        ("find", ".", "-exec", "curl", "{}", ";"),
    ],
)
def test_an_argv_is_judged_as_exec_runs_it(gate: World, argv: tuple[str, ...]) -> None:
    """The MCP `shell` tool and Codex's argv requests: no shell reads the argv itself."""
    d = decide(AgentRequest("mcp", "s", str(gate.project), argv))
    assert d.decision == "forbidden" and d.hidden, (argv, d.reason)


def test_an_allowed_runner_does_not_take_an_unruled_command_out_of_the_sandbox(
    gate: World,
) -> None:
    """`find` allowed by a rule: Codex runs `find . -exec touch {} +` outside its sandbox (all
    its commands are allowed by rules); bash runs `touch`, which no rule allows: sandboxed."""
    rules = gate.home / "rules" / "default.rules"
    rules.write_text(RULES + 'prefix_rule(pattern=["find"], decision="allow")\n')
    argv = ("find", ".", "-exec", "touch", "{}", "+")
    d = decide(AgentRequest("claude-code", "s", str(gate.project), argv))
    assert d.decision == "allow" and not d.hidden
    assert d.explain is not None
    assert d.explain["requirement"]["bypass_sandbox"] is True  # Codex's
    assert d.explain["gate"] == {"type": "skip", "bypass_sandbox": False,
                                 "proposed_execpolicy_amendment": None}  # fmt: skip
    assert any("runs it in the sandbox" in w["message"] for w in d.explain["warnings"])
    plain = decide(AgentRequest("claude-code", "s", str(gate.project), ("find", ".", "-name", "x")))
    assert plain.explain is not None and "gate" not in plain.explain


def test_a_list_s_redirection_words_belong_to_its_last_command() -> None:
    """tree-sitter hangs `2>&1 x` of `a || b 2>&1 x` on the whole list; bash gives x to b
    (found by the differential test, seed 2220676298)."""
    from shellgate.shell.bash_runs import bash_runs

    words = [r.words for r in bash_runs("true || grep -n foo a 2>&1 a#b")]
    assert ("grep", "-n", "foo", "a", "a#b") in words


def test_escaped_blanks_before_a_command_name_are_part_of_it() -> None:
    """tree-sitter leaves `\\ ` before the first word out of it; bash runs ` ab` (differential
    test, seed 200494450). An even run of backslashes escapes itself, not the blank."""
    from shellgate.shell.bash_runs import bash_runs

    assert [r.words for r in bash_runs("ls && \\ a\"b\"'c'")][-1] == (" abc",)
    assert [r.words for r in bash_runs("\\\\ ab")] == [("\\", "ab")]


def test_escaped_blanks_after_a_command_s_last_word_are_part_of_it() -> None:
    """tree-sitter leaves a trailing `\\<TAB>` out of the word before it; bash runs `pwd<TAB>`
    (differential seed 2219200486). A `#` right after it is a word to bash, not a comment."""
    from shellgate.shell.bash_runs import bash_runs

    assert [r.words for r in bash_runs("pwd\\\t\ntrue")] == [("pwd\t",), ("true",)]
    assert [r.words for r in bash_runs("pwd \\\t \\ ;true")] == [("pwd", "\t", " "), ("true",)]
    assert any(r.unknowable for r in bash_runs("pwd\\\t#c x"))
    assert [r.words for r in bash_runs("pwd\\\t<<< w")] == [("pwd\t",)]  # before a redirection


def test_a_bang_glued_to_a_word_is_part_of_it() -> None:
    """`!` is a reserved word only on its own: `![[ -n a ]]` runs `![[` (tree-sitter reads a
    negated test; differential seed 2914186182); before a metacharacter it negates."""
    from shellgate.shell.bash_runs import bash_runs

    words = [r.words for r in bash_runs("![[ -n a ]] && cat a")]
    assert words == [("![[", "-n", "a", "]]"), ("cat", "a")]
    assert [r.words for r in bash_runs("!(rm x)")] == [("rm", "x")]
    # glued through escaped blanks or a line continuation
    assert [r.words for r in bash_runs("!\\\tls")] == [("!\tls",)]
    assert [r.words for r in bash_runs("!\\\nls")] == [("!ls",)]


def test_assignments_on_a_line_tree_sitter_glues_on_are_not_the_command() -> None:
    """tree-sitter glues a line onto a pipeline's last command, its assignments as words;
    bash runs `pwd` (differential seed 2590780359). A quoted one is the command's name."""
    from shellgate.shell.bash_runs import bash_runs

    words = [r.words for r in bash_runs("cargo test | sort\n\nA=1 B[0]=2 pwd || ls")]
    assert words == [("cargo", "test"), ("sort",), ("pwd",), ("ls",)]
    assert ("A=1", "rm") in [r.words for r in bash_runs('a | b\n"A=1" rm')]


def test_the_words_after_the_time_keyword_run_as_they_are() -> None:
    """bash's `time` takes only `-p` and `--`: `time -p<EM SPACE>sort` runs `-p<EM SPACE>sort`
    (one word to bash; differential seed 1913291303); /usr/bin/time's reading is kept too."""
    from shellgate.shell.bash_runs import bash_runs

    words = [r.words for r in bash_runs("time -p\u2003sort && true")]
    assert ("-p\u2003sort",) in words
    assert {("-f", "x", "rm"), ("rm",)} <= set(r.words for r in bash_runs("time -f x rm"))


def test_escaped_blanks_before_a_command_s_redirection_are_its_name() -> None:
    """`\\ <<< w` runs ` ` (tree-sitter reads a statement of redirections only; differential
    seed 3383860901); words after the redirection are its arguments."""
    from shellgate.shell.bash_runs import bash_runs

    words = [r.words for r in bash_runs("echo RAN&& \\ <<< word\nrm -rf x")]
    assert words == [("echo", "RAN"), (" ",), ("rm", "-rf", "x")]
    assert [r.words for r in bash_runs("\\ <<< w x")] == [(" ", "x")]
    assert [r.words for r in bash_runs("\\  ab")] == [(" ", "ab")]


def test_comments_tree_sitter_misplaces() -> None:
    """A comment on a line tree-sitter glued on is no argument (differential seed 1279104430);
    `\\ #` is a word to bash, where tree-sitter reads a comment: asked (seed 1720472783)."""
    from shellgate.shell.bash_runs import bash_runs

    words = [r.words for r in bash_runs("echo hi | git push --force\nls -la # c\nls")]
    assert ("ls", "-la") in words
    assert any(r.unknowable for r in bash_runs("head || echo RAN && \\ #\nhead -n 5"))
    assert [r.words for r in bash_runs("ls; \\  #c")] == [("ls",), (" ",)]


def test_a_redirection_s_words_with_no_blank_between_are_one() -> None:
    """`<<EOF -x<EM SPACE>-f` passes one word (tree-sitter: two; differential seed 2784280773);
    the word before the redirection is never joined to them."""
    from shellgate.shell.bash_runs import bash_runs

    words = [r.words for r in bash_runs("npm test <<EOF -x\u2003-f\nhi\nEOF\nls")]
    assert words == [("npm", "test", "-x\u2003-f"), ("ls",)]
    assert [r.words for r in bash_runs("rm>f\u2003x")] == [("rm",)]
