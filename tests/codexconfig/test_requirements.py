"""requirements.toml's parser: every message Codex 0.169.0/0.171.0 prints for a bad file (each
text below was printed by the binaries, `codex exec` with the file over /etc/codex, spec
managed-tier.md), at the key's line and column; the valid forms, typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.codexconfig.requirements import (
    Requirements,
    RequirementsError,
    load_requirements,
    parse_requirements,
)
from shellgate.rules.decision import Decision

PATH = "/etc/codex/requirements.toml"
RULES = f"invalid rules in requirements (set by {PATH}): rules prefix_rule at index"
TYPE = f"failed to parse requirements layer {PATH}: "


def parse(text: str) -> Requirements:
    return parse_requirements(text, PATH, base=Path("/etc/codex"))


def fails(text: str) -> RequirementsError:
    with pytest.raises(RequirementsError) as err:
        parse(text)
    return err.value


# (file, Codex's message, line, column of the key at fault)
INVALID = [
    ('[rules]\nprefix_rules = [{ pattern = [{ token = "pwd" }], decision = "allow" }]',
     f"{RULES} 0 has decision 'allow', which is not permitted in requirements.toml: Codex "
     "merges these rules with other config and uses the most restrictive result (use "
     "'prompt', 'prompt-user', or 'forbidden')", 2, 50),
    ('[rules]\nprefix_rules = [{ pattern = ["pwd"], decision = "forbidden" }]',
     TYPE + 'invalid type: string "pwd", expected struct RequirementsExecPolicyPatternTokenToml'
     "\nin `rules.prefix_rules.pattern`", 2, 30),
    ("[rules]\nprefix_rules = []",
     f"invalid rules in requirements (set by {PATH}): rules prefix_rules cannot be empty", 2, 1),
    ('[rules]\nprefix_rules = [{ pattern = [{ token = "pwd" }] }]',
     f"{RULES} 0 is missing a decision", 2, 17),
    ('[rules]\nprefix_rules = [{ pattern = [{ token = "pwd", any_of = ["a"] }], '
     'decision = "prompt" }]',
     f"{RULES} 0 has an invalid pattern token at index 0: set either token or any_of, not both",
     2, 30),
    ('[rules]\nprefix_rules = [{ pattern = [{}], decision = "prompt" }]',
     f"{RULES} 0 has an invalid pattern token at index 0: set either token or any_of", 2, 30),
    ('[rules]\nprefix_rules = [{ pattern = [], decision = "prompt" }]',
     f"{RULES} 0 has an empty pattern", 2, 19),
    ('[rules]\nprefix_rules = [{ pattern = [{ token = "pwd" }], decision = "prompt", '
     'justification = "  " }]', f"{RULES} 0 has an empty justification", 2, 71),
    ('[rules]\nprefix_rules = [{ pattern = [{ any_of = [] }], decision = "prompt" }]',
     f"{RULES} 0 has an invalid pattern token at index 0: any_of cannot be empty", 2, 30),
    ('[rules]\nprefix_rules = [{ pattern = [{ token = "" }], decision = "prompt" }]',
     f"{RULES} 0 has an invalid pattern token at index 0: token cannot be empty", 2, 30),
    ('[rules]\nprefix_rules = [{ pattern = [{ token = "pwd" }], decision = "deny" }]',
     TYPE + "unknown variant `deny`, expected one of `allow`, `prompt`, `prompt-user`, "
     "`forbidden`\nin `rules.prefix_rules.decision`", 2, 50),
    ('allowed_approval_policies = ["bogus"]',
     TYPE + "unknown variant `bogus`, expected one of `untrusted`, `on-failure`, `on-request`, "
     "`granular`, `never`\nin `allowed_approval_policies`", 1, 30),
    ('allowed_sandbox_modes = ["bogus"]',
     TYPE + "unknown variant `bogus`, expected one of `read-only`, `workspace-write`, "
     "`danger-full-access`, `external-sandbox`\nin `allowed_sandbox_modes`", 1, 26),
    ('allowed_sandbox_modes = "read-only"',
     TYPE + 'invalid type: string "read-only", expected a sequence\nin `allowed_sandbox_modes`',
     1, 1),
    ("allowed_approval_policies = []", "field `allowed_approval_policies` cannot be empty", 1, 1),
    ('[permissions.filesystem]\ndeny_read = "x"',
     TYPE + 'invalid type: string "x", expected a sequence\nin `permissions.filesystem.deny_read`',
     2, 1),
    ('[rules]\nprefix_rules = [{ decision = "prompt" }]',
     TYPE + "missing field `pattern`\nin `rules.prefix_rules`", 2, 17),
    ("rules = 3",
     TYPE + "invalid type: integer `3`, expected struct RequirementsExecPolicyToml\nin `rules`",
     1, 1),
    ('[[rules.prefix_rules]]\npattern = [{ token = "pwd" }]\ndecision = "allow"',
     f"{RULES} 0 has decision 'allow', which is not permitted in requirements.toml: Codex "
     "merges these rules with other config and uses the most restrictive result (use "
     "'prompt', 'prompt-user', or 'forbidden')", 3, 1),
    ("[[hooks.PreToolUse]]\nmatcher = 3",
     TYPE + "invalid type: integer `3`, expected a string\nin `hooks`", 1, 3),
    ('[rules]\nprefix_rules = [{ pattern = [{ token = 3 }], decision = "prompt" }]',
     TYPE + "invalid type: integer `3`, expected a string\nin `rules.prefix_rules.pattern.token`",
     2, 32),
    ('[rules]\nprefix_rules = [\n  { pattern = [{ token = "ls" }], decision = "prompt" },\n'
     '  { pattern = [{ token = "pwd" }, { token = "a", any_of = ["b"] }], decision = "prompt" },'
     "\n]",
     f"{RULES} 1 has an invalid pattern token at index 1: set either token or any_of, not both",
     4, 35),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message", "line", "column"), INVALID)
def test_codex_messages_at_the_key(text: str, message: str, line: int, column: int) -> None:
    err = fails(text)
    assert (err.message, err.line, err.column) == (message, line, column)
    assert err.path == PATH
    assert str(err).startswith(f"{PATH}:{line}:{column}: ")


def test_toml_syntax_error_has_its_position() -> None:
    err = fails("[rules\nx = 1")
    assert err.message.startswith(TYPE + "TOML parse error")
    assert (err.line, err.column) == (1, 7)


def test_both_rule_forms_read_alike() -> None:
    inline = parse(
        "[rules]\nprefix_rules = [\n"
        '  { pattern = [{ token = "git" }, { any_of = ["push", "fetch"] }], decision = "prompt",'
        ' justification = "ask first" },\n'
        '  { pattern = [{ any_of = ["pwd", "id"] }], decision = "forbidden" },\n'
        '  { pattern = [{ token = "curl" }], decision = "prompt-user", canonical_matching = true },'
        "\n]\n"
    )
    tables = parse(
        '[[rules.prefix_rules]]\npattern = [{ token = "git" }, { any_of = ["push", "fetch"] }]\n'
        'decision = "prompt"\njustification = "ask first"\n\n'
        '[[rules.prefix_rules]]\npattern = [{ any_of = ["pwd", "id"] }]\ndecision = "forbidden"\n'
        '\n[[rules.prefix_rules]]\npattern = [{ token = "curl" }]\ndecision = "prompt-user"\n'
        "canonical_matching = true\n"
    )
    strip = [(r.pattern, r.decision, r.justification, r.canonical_matching) for r in inline.rules]
    assert strip == [(r.pattern, r.decision, r.justification, r.canonical_matching)
                     for r in tables.rules]  # fmt: skip
    assert strip[0] == ((("git",), ("push", "fetch")), "prompt", "ask first", False)
    assert [(r.line, r.column) for r in tables.rules] == [(1, 1), (6, 1), (10, 1)]
    assert [(r.line, r.column) for r in inline.rules] == [(3, 3), (4, 3), (5, 3)]
    # a first position with alternatives is one policy rule per alternative; prompt-user asks
    policy_rules = [(p.first, p.rest, p.decision, p.layer) for p in inline.prefix_rules()]
    assert policy_rules == [
        ("git", (("push", "fetch"),), Decision.PROMPT, "requirements"),
        ("pwd", (), Decision.FORBIDDEN, "requirements"),
        ("id", (), Decision.FORBIDDEN, "requirements"),
        ("curl", (), Decision.PROMPT, "requirements"),
    ]


def test_constraints_deny_read_and_hooks() -> None:
    req = parse(
        'allowed_approval_policies = ["untrusted", "on-request"]\n'
        'allowed_sandbox_modes = ["read-only"]\n'
        "[permissions.filesystem]\n"
        'deny_read = ["/srv/secret.txt", "keys/*.pem", "../up"]\n'
        "[hooks]\n"
        'managed_dir = "/etc/codex/hooks"\n'
        "[[hooks.PreToolUse]]\n"
        'matcher = "Bash"\n'
        "[[hooks.PreToolUse.hooks]]\n"
        'type = "command"\n'
        'command = "/etc/codex/hooks/pre.sh"\n'
        "timeout = 30\n"
    )
    assert req.allowed_approval_policies == ("untrusted", "on-request")
    assert req.allowed_sandbox_modes == ("read-only",)
    # relative entries resolve against /etc/codex, globs kept as written
    assert req.deny_read == ("/srv/secret.txt", "/etc/codex/keys/*.pem", "/etc/up")
    assert req.hooks is not None
    assert req.hooks.managed_dir == "/etc/codex/hooks"
    hooks = req.hooks.pre_tool_use
    groups = [(g.matcher, [(h.command, h.timeout) for h in g.hooks]) for g in hooks]
    assert groups == [("Bash", [("/etc/codex/hooks/pre.sh", 30)])]
    assert req.warnings == ()


def test_unknown_keys_are_codex_warnings_with_positions() -> None:
    req = parse(
        'foo = 1\nprefix_rules = [{ pattern = [{ token = "pwd" }], decision = "prompt" }]\n'
        "[exec_policy]\nx = 1\n"
        "[rules]\n"
        'prefix_rules = [{ pattern = [{ token = "pwd" }], decision = "prompt", colour = "red" }]\n'
        "[mcp_servers]\n"  # known to Codex, unread by ShellGate: no warning
    )
    assert [(w.key, w.line, w.column) for w in req.warnings] == [
        ("foo", 1, 1),
        ("prefix_rules", 2, 1),
        ("exec_policy", 3, 2),
        ("rules.prefix_rules.0.colour", 6, 71),
    ]
    assert req.warning_text() == (
        "Codex is ignoring 4 unrecognized configuration settings. Check for typos or deprecated "
        f"settings.\n  requirements ({PATH}): `foo` is ignored.\n"
        f"  requirements ({PATH}): `prefix_rules` is ignored.\n"
        f"  requirements ({PATH}): `exec_policy` is ignored.\n"
        f"  requirements ({PATH}): `rules.prefix_rules.0.colour` is ignored."
    )
    # the rule with an unknown key still applies; the top-level prefix_rules does not
    assert [r.pattern for r in req.rules] == [(("pwd",),)]


def test_load_requirements(tmp_path: Path) -> None:
    assert load_requirements(tmp_path) is None
    (tmp_path / "requirements.toml").write_bytes(b'allowed_sandbox_modes = ["read-only"]\n')
    req = load_requirements(tmp_path)
    assert req is not None and req.path == str(tmp_path / "requirements.toml")
    (tmp_path / "requirements.toml").write_bytes(b"x = 1\n\xff = 2\n")
    with pytest.raises(RequirementsError) as err:
        load_requirements(tmp_path)
    assert (err.value.line, err.value.column) == (2, 1)
