"""The real Claude Code (`claude -p`) with ShellGate's hook installed by `shellgate hook install`,
against the Anthropic stand-in, offline: what ran is checked on disk, what the model was told in
the next request's tool results."""

from __future__ import annotations

from agents import RULES, Home, bash, claude_turn, failing_hook_blocks

import realtools
from realclients import tool_results


def test_forbidden_blocked_allowed_sandboxed_and_no_editor_fallback(home: Home) -> None:
    claude = realtools.claude()
    home.rules(RULES)
    (home.ws / "victim").write_text("keep")
    outside = home.home / "outside"
    home.install("claude-code", "--sandbox", "workspace-write")
    script = [
        bash("rm -f victim"),
        bash("echo hi > made && cat made"),
        bash(f"touch {outside}"),
        bash("touch asked"),
        bash("timeout 5 rm -f victim"),
        {"text": "fin"},
    ]
    result = claude_turn(home, claude, script)
    assert result["rc"] == 0, result["stderr"]
    told = tool_results(result["requests"][-1])
    assert len(told) == 5, told
    # forbidden: not run, the model reads Codex's words and the rule's justification
    assert (home.ws / "victim").read_text() == "keep"
    assert "rejected: keep the victim file" in told[0] and "ShellGate" in told[0]
    # allowed: ran (in the sandbox, inside the workspace)
    assert (home.ws / "made").read_text() == "hi\n" and "hi" in told[1]
    # the sandbox kept the write outside the workspace off the disk, and said so
    assert not outside.exists()
    assert "Read-only file system" in told[2] and "denied by the workspace-write sandbox" in told[2]
    # needs approval, no editor: Claude Code's own prompt, which `-p` answers no, with our reason
    assert not (home.ws / "asked").exists()
    assert "asked needs a look" in told[3] and "no editor is reachable" in told[3]
    # a wrapper does not hide `rm` from the rules: judged on its own, still forbidden
    assert "bash runs `rm -f victim` (through `timeout`)" in told[4]
    assert "keep the victim file" in told[4]


def test_a_failing_hook_blocks(home: Home) -> None:
    claude = realtools.claude()
    home.install("claude-code")
    assert "blocked (ShellGate could not decide" in failing_hook_blocks(home, claude_turn, claude)


def test_rules_that_do_not_load_block(home: Home) -> None:
    claude = realtools.claude()
    home.rules('prefix_rule(pattern=["touch"], decision="allow"\n')  # broken: no closing paren
    home.install("claude-code")
    result = claude_turn(home, claude, [bash("touch made"), {"text": "fin"}])
    told = tool_results(result["requests"][-1])
    assert not (home.ws / "made").exists()
    assert len(told) == 1 and "the rules do not load" in told[0], told
    assert "default.rules:2:" in told[0]  # file, line and column
