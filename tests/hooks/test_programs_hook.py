"""Commands a program runs for bash (issue 24), through the hook `hook install` writes, as the
agent starts it (a process): with `rm` forbidden, alone and with the host program allowed by
name, a literal `rm` a program runs is denied and one decided at run time is not allowed; an
ordinary command keeps its answer."""

from __future__ import annotations

import pytest
from agents import Home
from test_never_looser import answer

FORBID_RM = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
HOSTS = "".join(
    f'prefix_rule(pattern=["{h}"], decision="allow")\n'
    for h in ("git", "tar", "awk", "sed", "bash", "ls", "vim", "perl")
)
LITERAL = (
    "git -c alias.x='!rm -rf build' x",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf build' git x",
    "git -c core.sshCommand='rm -rf build #' ls-remote ssh://h/r",
    "EDITOR='rm -rf build #' git commit",
    "tar -cf /dev/null f --checkpoint=1 --checkpoint-action=exec='rm -rf build'",
    "awk 'BEGIN {system(\"rm -rf build\")}'",
    "sed -n '1e rm -rf build' f",
    "vim -es -c '!rm -rf build' -c 'qa!'",
    "perl -e 'system(\"rm -rf build\")'",
)
RUN_TIME = ("BASH_ENV=./e.sh bash -c true", "LD_PRELOAD=./x.so ls")


@pytest.mark.parametrize("rules", [FORBID_RM, FORBID_RM + HOSTS], ids=["rm", "rm+hosts"])
def test_the_installed_hook_judges_what_programs_run(home: Home, rules: str) -> None:
    home.install("claude-code")
    home.rules(rules)
    for command in LITERAL:
        verdict, reason, _ = answer(home, "claude-code", command)
        assert verdict == "deny", (command, verdict, reason)
        assert "runs `rm -rf build" in reason, reason
    for command in RUN_TIME:
        verdict, reason, _ = answer(home, "claude-code", command)
        assert verdict == "ask", (command, verdict, reason)
        assert "bash decides this command at run time" in reason, reason
    if rules != FORBID_RM:
        for command in ("git status", "awk '{print $1}' f", "sed -n 1,5p f"):
            verdict, reason, rewritten = answer(home, "claude-code", command)
            assert verdict == "allow" and rewritten is None, (command, reason)
