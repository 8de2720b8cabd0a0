"""Diagnostics from the real server: Codex's errors on the exact token, the file-level refusal,
warnings beyond Codex, under both client profiles."""

from __future__ import annotations

from lsprotocol import types as T
from pytest_lsp import LanguageClient

from .conftest import diagnostics, env_of, open_doc, replace_all

BAD_DECISION = """prefix_rule(
    pattern = ["git", "push"],
    decision = "deny",
)
"""


async def test_invalid_decision_on_the_token_with_did_you_mean(client: LanguageClient) -> None:
    uri = open_doc(client, env_of(client).project / "a.rules", BAD_DECISION)
    items = await diagnostics(client, uri)
    by_code = {d.code: d for d in items}
    bad = by_code["invalid-decision"]
    assert bad.severity == T.DiagnosticSeverity.Error
    assert bad.message == 'invalid decision: deny (did you mean "forbidden"?)'
    assert bad.range.start == T.Position(2, 4)
    refused = by_code["file-refused"]
    assert refused.range.start.line == 0
    assert "Codex refuses this whole file" in refused.message


async def test_failing_example_is_on_the_example(client: LanguageClient) -> None:
    text = 'prefix_rule(\n    pattern = ["git", "push"],\n    match = ["git pull"],\n)\n'
    uri = open_doc(client, env_of(client).project / "b.rules", text)
    items = await diagnostics(client, uri)
    failing = [d for d in items if d.code == "example-not-matched"]
    assert len(failing) == 1
    assert failing[0].range.start == T.Position(2, 13)
    assert failing[0].range.end == T.Position(2, 23)
    assert failing[0].message.startswith("expected every example to match at least one rule")


async def test_warnings_beyond_codex(client: LanguageClient) -> None:
    text = (
        'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
        'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
        'prefix_rule(pattern = ["git", "push", "--force"], decision = "allow")\n'
        'prefix_rule(pattern = ["xargs"], decision = "allow")\n'
        'prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")\n'
    )
    uri = open_doc(client, env_of(client).project / "c.rules", text)
    items = await diagnostics(client, uri)
    codes = {(d.code, d.range.start.line) for d in items}
    assert ("duplicate-rule", 1) in codes
    assert ("shadowed-rule", 2) in codes
    assert ("allow-runs-commands", 3) in codes
    assert ("missing-justification", 4) in codes
    assert ("equivalent-spelling", 4) in codes  # rm -fr, rm -r -f
    assert not [d for d in items if d.severity == T.DiagnosticSeverity.Error]


async def test_edits_follow_the_latest_text(client: LanguageClient) -> None:
    uri = open_doc(client, env_of(client).project / "d.rules", BAD_DECISION)
    assert "invalid-decision" in {d.code for d in await diagnostics(client, uri)}
    for i in range(100):
        replace_all(client, uri, BAD_DECISION.replace("deny", "forbidden" if i == 99 else f"x{i}"))
    items = await diagnostics(client, uri)
    assert all(d.severity != T.DiagnosticSeverity.Error for d in items)
    assert "missing-justification" in {d.code for d in items}
