"""Programs that run commands for bash (issue 24), judged where ShellGate is the gate: through
`broker.decide`, the path of every hook and of the MCP `shell` tool, under a real rules file with
`rm` forbidden, alone and with the host program allowed by name. A literal command is refused;
one decided at run time (a file read, code loaded, text built at run time) is asked."""

from __future__ import annotations

import pytest

from shellgate.broker.decide import decide
from shellgate.broker.protocol import AgentRequest

from .conftest import World

FORBID_RM = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
HOSTS = ("git", "tar", "awk", "sed", "zip", "ssh", "vim", "make", "gdb", "sqlite3", "socat",
         "perl", "python3", "less", "bash", "node", "ruby", "env")  # fmt: skip
ALLOW_HOSTS = "".join(f'prefix_rule(pattern=["{h}"], decision="allow")\n' for h in HOSTS)

# Issue 24's spellings, each ran `rm -rf build` in real bash: a literal `rm`, refused.
LITERAL = [
    "git -c alias.x='!rm -rf build' x",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf build' git x",
    "git -c core.sshCommand='rm -rf build #' ls-remote ssh://h/r",
    "GIT_SSH_COMMAND='rm -rf build #' git ls-remote ssh://h/r",
    "git -c core.fsmonitor='rm -rf build #' status",
    "GIT_EXTERNAL_DIFF='rm -rf build #' git diff",
    "git -c core.editor='rm -rf build #' commit",
    "EDITOR='rm -rf build #' git commit",
    "tar -cf /dev/null f --checkpoint=1 --checkpoint-action=exec='rm -rf build'",
    "tar -xf a.tar --to-command='rm -rf build'",
    "tar -I 'rm -rf build #' -xf a.tar",
    "zip x.zip f -T -TT 'rm -rf build #'",
    "ssh -o ProxyCommand='rm -rf build' h",
    "awk 'BEGIN {system(\"rm -rf build\")}'",
    "sed -n '1e rm -rf build' f",
    "vim -es -c '!rm -rf build' -c 'qa!'",
    "LESSOPEN='|rm -rf build #%s' less f",
    "make -f /dev/null --eval='x: ; rm -rf build'",
    "make -f /dev/null --eval='$(shell rm -rf build)'",
    "gdb -batch -ex '!rm -rf build'",
    "sqlite3 :memory: '.shell rm -rf build'",
    "socat - SYSTEM:'rm -rf build'",
    "perl -e 'system(\"rm -rf build\")'",
    # and the other ways of giving them
    "env EDITOR='rm -rf build #' git commit",
    "export GIT_SSH_COMMAND='rm -rf build #'; git fetch",
    "declare -x PAGER='rm -rf build'; man ls",
    "python3 -c 'import os; os.system(\"rm -rf build\")'",
    'python3 -c \'import subprocess; subprocess.run(["rm", "-rf", "build"])\'',
    "python3 <<'EOF'\nimport os\nos.system('rm -rf build')\nEOF",
    'node -e \'require("child_process").execSync("rm -rf build")\'',
    "ruby -e 'system(\"rm -rf build\")'",
    "perl -e '`rm -rf build`'",
    "awk '{print | \"rm -rf build\"}' f",
    "awk 'BEGIN {while ((\"rm -rf build\" | getline l) > 0) print l}'",
    "env 'BASH_FUNC_x%%=() { rm -rf build; }' bash -c x",
    "timeout 5 tar -xf a.tar --to-command='rm -rf build'",
    'sh -c "awk \'BEGIN {system(\\"rm -rf build\\")}\'"',
]

# Decided at run time: asked.
RUN_TIME = [
    "BASH_ENV=./e.sh bash -c true",
    "export BASH_ENV=./e.sh; bash -c true",
    "LD_PRELOAD=./x.so ls",
    "env LD_PRELOAD=./x.so ls",
    "vim -S x.vim",
    "gdb -batch -x cmds",
    "awk 'BEGIN {system(cmd)}'",
    "python3 -c 'import os; os.system(c)'",
    'tar -xf a.tar --to-command="$CMD"',
    "sed 's/x/y/e' f",
    "perl -e 'system($c)'",
    "X='rm -rf build'; export X; export EDITOR=\"$X\"; git commit",  # a variable's value
    # a program file given by an option, for programs allowed by name as if read-only
    "awk -f p.awk f",
    "sed -f s.sed f",
    "make -f x.mk",
    "make --file=x.mk all",
]

# Ordinary commands: answered as today.
ORDINARY = [
    "make",  # the project's own Makefile: out of reach, judged by the rules as `make`
    "make -f /dev/null -n",
    "git status",
    "git log --oneline",
    "awk '{print $1}' f",
    "sed -n 1,5p f",
    "python3 -c 'print(1)'",
    "tar -xf a.tar",
    "sed -i 's/a/b/g' f",
    "EDITOR=vim git status",
    "perl -ne 'print if /x/' f",
    "export PAGER=cat; git log",
    "ENV=production ls",
]


def _ask(world: World, rules: str, command: str) -> tuple[str, str]:
    (world.home / "rules" / "default.rules").write_text(rules)
    d = decide(AgentRequest("claude-code", "s", str(world.project), command))
    return d.decision, d.reason or ""


@pytest.mark.parametrize("rules", [FORBID_RM, FORBID_RM + ALLOW_HOSTS], ids=["rm", "rm+hosts"])
@pytest.mark.parametrize("command", LITERAL)
def test_a_command_a_program_runs_is_judged(world: World, rules: str, command: str) -> None:
    decision, reason = _ask(world, rules, command)
    assert decision == "forbidden", (command, reason)
    assert "runs `rm -rf build" in reason and "no rm" in reason, reason


@pytest.mark.parametrize("rules", [FORBID_RM, FORBID_RM + ALLOW_HOSTS], ids=["rm", "rm+hosts"])
@pytest.mark.parametrize("command", RUN_TIME)
def test_what_a_program_decides_at_run_time_is_asked(
    world: World, rules: str, command: str
) -> None:
    decision, reason = _ask(world, rules, command)
    assert decision == "prompt", (command, reason)
    assert reason.startswith("bash decides this command at run time"), reason


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_are_answered_as_today(world: World, command: str) -> None:
    rules = FORBID_RM + ALLOW_HOSTS + 'prefix_rule(pattern=["ls"], decision="allow")\n'
    decision, reason = _ask(world, rules, command)
    assert decision == "allow", (command, reason)


def test_the_reason_names_the_program_and_how(world: World) -> None:
    _, reason = _ask(world, FORBID_RM, "git -c alias.x='!rm -rf build' x")
    assert reason.startswith("git runs `rm -rf build` (alias `x`, set by -c)"), reason
    _, reason = _ask(world, FORBID_RM, "tar -xf a.tar --to-command='rm -rf build'")
    assert reason.startswith("tar runs `rm -rf build` (`--to-command`)"), reason


def test_explain_warns_and_keeps_codex_s_decision(world: World) -> None:
    (world.home / "rules" / "default.rules").write_text(FORBID_RM + ALLOW_HOSTS)
    d = decide(
        AgentRequest("claude-code", "s", str(world.project), "awk 'BEGIN {system(\"rm x\")}'")
    )
    assert d.explain is not None
    assert d.explain["requirement"]["type"] == "skip"  # Codex's: `awk` allowed by a rule
    assert d.explain["gate"]["type"] == "forbidden"
    said = [w["message"] for w in d.explain["warnings"] if w["code"] == "program-runs"]
    assert said and said[0].startswith("`awk` runs `rm x` (its awk program, `system()`)"), said
