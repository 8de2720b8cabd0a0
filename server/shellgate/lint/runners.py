"""`allow` on programs that run other commands, or that destroy things.

An `allow` rule lets a matching command run without asking and outside the sandbox; on a
program that runs whatever follows it (a shell, `env`, `sudo`, `xargs`, `find -exec`, an
interpreter's `-c`), it allows every command at all.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from shellgate.lint.describe import pattern_text
from shellgate.lint.finding import Edit, Finding, Fix, Severity
from shellgate.lint.model import RuleCall, arg
from shellgate.rules.decision import Decision
from shellgate.rules.rule import PrefixRule

# Programs whose arguments are (or may contain) another command to run.
RUNNERS = frozenset(
    [
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "busybox",
        "env",
        "sudo",
        "doas",
        "su",
        "runuser",
        "pkexec",
        "xargs",
        "parallel",
        "nohup",
        "timeout",
        "nice",
        "ionice",
        "time",
        "stdbuf",
        "chroot",
        "setsid",
        "unshare",
        "nsenter",
        "flock",
        "watch",
        "strace",
        "ltrace",
        "script",
        "unbuffer",
        "exec",
        "eval",
        "command",
        "builtin",
        "ssh",
        "npx",
        "uvx",
        "pnpx",
        "bunx",
    ]
)
# Interpreters: dangerous when the pattern stops before the program text or at `-c`/`-e`.
INTERPRETERS = frozenset(
    [
        "python",
        "python2",
        "python3",
        "node",
        "nodejs",
        "perl",
        "ruby",
        "php",
        "lua",
        "deno",
        "bun",
        "Rscript",
        "osascript",
    ]
)
INLINE_CODE_FLAGS = frozenset(
    ["-c", "-e", "-m", "-r", "-p", "--eval", "--print", "--command", "-", "--exec"]
)
# Programs with an option that runs a command: `find -exec`, `fd -x`, `git -c core.pager=`.
EXEC_OPTIONS = {
    "find": "-exec/-execdir/-ok",
    "fd": "-x/--exec",
    "rsync": "-e",
    "tar": "--to-command",
}
DESTRUCTIVE = frozenset(
    ["rm", "rmdir", "shred", "dd", "mkfs", "wipefs", "truncate", "srm", "unlink"]
)


def _program(rule: PrefixRule) -> str:
    return posixpath.basename(rule.first) or rule.first


def _why(rule: PrefixRule) -> tuple[str, str] | None:
    program = _program(rule)
    if program in RUNNERS or program.startswith("python3."):
        return "allow-runs-commands", f"`{program}` runs the command that follows it"
    if program in INTERPRETERS:
        first_rest = set(rule.rest[0]) if rule.rest else set()
        if not rule.rest or first_rest & INLINE_CODE_FLAGS:
            return "allow-runs-commands", f"`{program}` runs any code it is given"
        return None
    if program in EXEC_OPTIONS:
        return "allow-runs-commands", (f"`{program} {EXEC_OPTIONS[program]}` runs any command")
    if program in DESTRUCTIVE:
        return "allow-dangerous", f"`{program}` destroys data (think `{program} -rf /`)"
    return None


def runner_findings(rule_calls: Sequence[RuleCall]) -> list[Finding]:
    findings: list[Finding] = []
    for call, rules in rule_calls:
        for rule in rules:
            if rule.decision is not Decision.ALLOW:
                continue
            why = _why(rule)
            if why is None:
                continue
            code, reason = why
            decision = arg(call, "decision")
            target = decision or arg(call, "pattern")
            fixes: tuple[Fix, ...] = ()
            if decision is not None:
                edit = Edit(decision.value_span, '"prompt"')
                fixes = (Fix("Change the decision to prompt", (edit,), preferred=True),)
            findings.append(
                Finding(
                    code,
                    Severity.WARNING,
                    f"`allow` on `{pattern_text(rule)}`: {reason}, so this allows it without "
                    "asking and outside the sandbox; prefer `prompt`, or a longer pattern",
                    target.value_span if target is not None else call.span,
                    fixes,
                )
            )
            break  # one warning per call
    return findings
