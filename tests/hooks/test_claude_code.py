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
    kept = home.home / "kept"
    kept.mkdir()
    (kept / "file").write_text("keep")
    said = home.install("claude-code")  # the default: the workspace-write sandbox rewrite
    assert "sandbox: workspace-write" in said
    script = [
        bash("rm -f victim"),
        bash("echo hi > made && cat made"),
        bash(f"touch {outside}"),
        bash("touch asked"),
        bash("timeout 5 rm -f victim"),
        bash(f"find {kept} -delete"),  # risky, no rule: runs, confined
        {"text": "fin"},
    ]
    result = claude_turn(home, claude, script)
    assert result["rc"] == 0, result["stderr"]
    told = tool_results(result["requests"][-1])
    assert len(told) == 6, told
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
    # a risky command no rule matched ran in the sandbox: outside the workspace nothing went
    assert (kept / "file").read_text() == "keep" and "Read-only file system" in told[5]


def test_without_a_sandbox_a_risky_command_is_asked_not_run(home: Home) -> None:
    """Default install, no bubblewrap: Claude Code alone would ask, so it asks (`-p`: no)."""
    claude = realtools.claude()
    kept = home.home / "kept"
    kept.mkdir()
    (kept / "file").write_text("keep")
    said = home.install("claude-code")
    result = claude_turn(home, claude, [bash(f"find {kept} -delete"), bash("ls"),
                                        {"text": "fin"}],
                         SHELLGATE_BWRAP=str(home.root / "no-bwrap"))  # fmt: skip
    assert "sandbox: workspace-write" in said
    told = tool_results(result["requests"][-1])
    assert len(told) == 2, told
    assert (kept / "file").read_text() == "keep"
    assert "no rule allows it and it is not read-only" in told[0] and "bubblewrap" in told[0]
    assert "no rule allows it" not in told[1]  # read-only: ran


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


def test_spellings_of_a_forbidden_command_leave_build_in_place(home: Home) -> None:
    """Issue 18: bash runs `rm` for `\\rm` and inside `sh -c`; a rule forbidding rm holds."""
    claude = realtools.claude()
    home.rules(RULES)
    (home.ws / "build").mkdir()
    (home.ws / "build" / "out.o").write_text("obj")
    home.install("claude-code")
    script = [bash("\\rm -rf build"), bash("sh -c 'rm -rf build'"), {"text": "fin"}]
    result = claude_turn(home, claude, script)
    told = tool_results(result["requests"][-1])
    assert len(told) == 2, told
    assert (home.ws / "build" / "out.o").read_text() == "obj"
    assert all("ShellGate" in t and "keep the victim file" in t for t in told), told
