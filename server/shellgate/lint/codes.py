"""Every diagnostic code lint reports beyond the loader's own (`RulesError.code`)."""

from __future__ import annotations

from shellgate.lint.finding import Severity

# code -> (severity, one-line description for docs and SARIF)
CODES: dict[str, tuple[Severity, str]] = {
    "file-refused": (
        Severity.ERROR,
        "Codex refuses the whole file (and the whole policy load) because of an error in it",
    ),
    "duplicate-rule": (Severity.WARNING, "the same pattern and decision appear earlier"),
    "shadowed-rule": (
        Severity.WARNING,
        "a broader rule with a stricter decision always wins: this rule never decides",
    ),
    "managed-shadowed": (
        Severity.WARNING,
        "an admin's rule (system rules file or requirements.toml) with a stricter decision "
        "matches every command this user rule matches: it never decides",
    ),
    "requirements-invalid": (
        Severity.ERROR,
        "requirements.toml is not what Codex accepts (Codex's message, at the key): "
        "Codex and every ShellGate entry point refuse to start",
    ),
    "requirements-ignored": (Severity.WARNING, "a requirements.toml key Codex ignores"),
    "redundant-rule": (Severity.INFO, "a broader rule with the same decision already covers it"),
    "allow-runs-commands": (
        Severity.WARNING,
        "`allow` on a program that runs other commands (bash, env, sudo, xargs, find...)",
    ),
    "allow-hands-commands": (
        Severity.INFO,
        "`allow` on a program that runs commands through its options, configuration or inline "
        "code (git, tar, awk, sed, ssh, ...): which ones, and that ShellGate judges them",
    ),
    "allow-dangerous": (Severity.WARNING, "`allow` on a destructive program (rm, dd, ...)"),
    "missing-justification": (
        Severity.WARNING,
        "`forbidden` without a justification: the agent and the user are not told why",
    ),
    "equivalent-spelling": (
        Severity.HINT,
        "an equivalent spelling of the command escapes this rule",
    ),
    "token-has-space": (
        Severity.WARNING,
        "a pattern token with whitespace never matches a command split by the shell",
    ),
    "literal-wildcard": (
        Severity.WARNING,
        "`*` in a pattern is a literal character, not a wildcard",
    ),
    "check-mismatch": (Severity.ERROR, "a `# check:` comment expects another decision"),
    "check-bad-expectation": (Severity.ERROR, "a `# check: ... => X` names no decision"),
}

