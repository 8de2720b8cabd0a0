"""requirements.toml in an editor (the library under the language server): what completes where,
in the shapes people type, and what a hover says where."""

from __future__ import annotations

import pytest

from shellgate.codexconfig.editing import choices_at, hover_at, is_requirements

RULE_KEYS = ["pattern", "decision", "justification", "canonical_matching"]
DECISIONS = ["forbidden", "prompt", "prompt-user"]


@pytest.mark.parametrize(
    ("before", "labels"),
    [
        ("[rules]\n", ["prefix_rules"]),
        ("[rules]\nprefix_rules = [{ ", RULE_KEYS),
        ('[rules]\nprefix_rules = [{ pattern = [{ token = "git" }], ', RULE_KEYS),
        ('[rules]\nprefix_rules = [\n  { pattern = [{ token = "a" }], decision = "prompt" },\n  { ',
         RULE_KEYS),
        ('[rules]\nprefix_rules = [{ pattern = [{ token = "git" }], decision = ', DECISIONS),
        ("[[rules.prefix_rules]]\ndec", RULE_KEYS),  # the word being typed
        ('[[rules.prefix_rules]]\npattern = [{ token = "git" }, { ', ["token", "any_of"]),
        ("[[rules.prefix_rules]]\n# a comment = [\ndecision = ", DECISIONS),
        ("[[rules.prefix_rules]]\njustification = \"it's\"\ndecision = ", DECISIONS),
        ('a = ["x\n[[rules.prefix_rules]]\ndecision = "', DECISIONS),  # a line left open above
        ('allowed_sandbox_modes = ["read-only", ',
         ["read-only", "workspace-write", "danger-full-access", "external-sandbox"]),
        ("[permissions.filesystem]\n", ["deny_read"]),
        ("[[hooks.PreToolUse]]\n", ["matcher", "hooks"]),
        ("[", ["rules", "permissions.filesystem", "hooks"]),
        ("[[", ["rules.prefix_rules", "hooks.PreToolUse"]),
    ],
)  # fmt: skip
def test_choices(before: str, labels: list[str]) -> None:
    assert [c.label for c in choices_at(before)] == labels


def test_values_are_quoted_unless_inside_a_string() -> None:
    assert [c.insert for c in choices_at("[[rules.prefix_rules]]\ndecision = ")] == [
        '"forbidden"', '"prompt"', '"prompt-user"'
    ]  # fmt: skip
    assert choices_at('[[rules.prefix_rules]]\ndecision = "p')[1].insert == "prompt"
    assert [c.insert for c in choices_at("[[rules.prefix_rules]]\ncanonical_matching = ")] == [
        "true", "false"
    ]  # fmt: skip


TEXT = """\
[rules]
prefix_rules = [
  { pattern = [{ token = "git" }], decision = "prompt-user" },
  { pattern = [{ any_of = ["rm", "shred"] }], decision = "forbidden", justification = "no" },
]
"""


def test_hover() -> None:
    path = "/etc/codex/requirements.toml"
    first = hover_at(TEXT, path, 3, 40)
    assert first is not None and first.startswith("**managed prefix_rule** `git` → **prompt-user**")
    assert "Codex's app-server refuses it when it cannot ask" in first
    assert "Codex reads only" not in first  # this is the file Codex reads
    second = hover_at(TEXT, path, 4, 5)
    assert second is not None and "`[rm|shred]` → **forbidden**" in second
    assert hover_at(TEXT, path, 1, 3) == (
        "**rules**: `[rules] prefix_rules`: the admin's command rules (prompt, prompt-user or "
        "forbidden), merged after every rules file; the strictest decision wins."
    )
    assert hover_at(TEXT.replace("prompt-user", "allow"), path, 3, 40) is None  # see diagnostics


def test_is_requirements() -> None:
    assert is_requirements("/etc/codex/requirements.toml")
    assert not is_requirements("/x/requirements.txt")
