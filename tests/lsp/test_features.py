"""Hover, completion, code actions, outline, `# check:` hints and `shellgate/explain`, through
the real server under both client profiles."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lsprotocol import types as T
from pytest_lsp import LanguageClient

from .conftest import diagnostics, env_of, hover, open_doc, replace_all

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")
SCHEMA = json.loads(
    (Path(__file__).parents[2] / "rules-schema" / "explain.schema.json").read_text()
)

RULES = """prefix_rule(
    pattern = ["git", "push"],
    decision = "prompt",
    justification = "publishing needs a human",
    match = ["git push origin main"],
    not_match = ["git pull"],
)
prefix_rule(
    pattern = ["git", "push", "--force"],
    decision = "forbidden",
    justification = "rewrites shared history",
    match = ["git push --force"],
)
# check: git push origin main && git status
# check: git push --force => forbidden
"""


async def test_hover_on_rule_spells_it_out_with_what_decides_its_examples(
    client: LanguageClient,
) -> None:
    uri = open_doc(client, env_of(client).project / "r.rules", RULES)
    text = await hover(client, uri, 2, 6)  # on `decision` keyword? no: the argument name
    assert text is not None and "decision" in text and "prompt" in text
    text = await hover(client, uri, 0, 12)  # inside the call, outside any argument
    assert text is not None
    assert "`git push` → **prompt**" in text
    assert "publishing needs a human" in text
    # `git push --force` matches this rule too, but the forbidden rule decides it.
    text = await hover(client, uri, 8, 1)
    assert text is not None and "`git push --force` → **forbidden**" in text
    assert "| `git push --force` | must match ✓ | **forbidden** by this rule |" in text


async def test_hover_on_builtin_and_example(client: LanguageClient) -> None:
    uri = open_doc(client, env_of(client).project / "r.rules", RULES)
    text = await hover(client, uri, 0, 3)
    assert text is not None and "prefix_rule(pattern" in text
    text = await hover(client, uri, 4, 16)  # inside "git push origin main"
    assert text is not None
    assert "**match example** `git push origin main`" in text
    assert "prompt" in text and "r.rules:1" in text  # the trace names the deciding rule


async def test_check_comment_hover_and_inline_decision(client: LanguageClient) -> None:
    uri = open_doc(client, env_of(client).project / "r.rules", RULES)
    text = await hover(client, uri, 13, 12)
    assert text is not None and "**# check:** `git push origin main && git status`" in text
    text = await hover(client, uri, 14, 12)
    assert text is not None and "(expects forbidden: ✓)" in text
    whole = T.Range(T.Position(0, 0), T.Position(20, 0))
    if env_of(client).pull:  # VS Code: inlay hints
        hints = await client.text_document_inlay_hint_async(
            T.InlayHintParams(T.TextDocumentIdentifier(uri), whole)
        )
        labels = {h.position.line: h.label for h in hints or []}
    else:  # Neovim 0.7: code lenses
        lenses = await client.text_document_code_lens_async(
            T.CodeLensParams(T.TextDocumentIdentifier(uri))
        )
        labels = {c.range.start.line: c.command.title for c in lenses or [] if c.command}
    assert "prompt" in str(labels[13])
    assert "forbidden" in str(labels[14]) and "✗" not in str(labels[14])


async def test_completion(client: LanguageClient) -> None:
    text = 'prefix_rule(pattern = ["git"], decision = "\n\nprefix_rule(pattern = ["x"], '
    uri = open_doc(client, env_of(client).project / "c.rules", text)

    async def labels(line: int, character: int) -> set[str]:
        result = await client.text_document_completion_async(
            T.CompletionParams(T.TextDocumentIdentifier(uri), T.Position(line, character))
        )
        items = result.items if isinstance(result, T.CompletionList) else result or []
        return {i.label for i in items}

    assert await labels(0, 43) == {"allow", "prompt", "forbidden"}
    assert {"prefix_rule", "network_rule", "host_executable"} <= await labels(1, 0)
    args = await labels(2, 29)
    assert {"decision", "match", "not_match", "justification"} <= args
    assert "pattern" not in args  # already given


async def test_quick_fix_for_a_misspelt_decision(client: LanguageClient) -> None:
    text = 'prefix_rule(pattern = ["git", "push"], decision = "promt")\n'
    uri = open_doc(client, env_of(client).project / "q.rules", text)
    items = await diagnostics(client, uri)
    bad = next(d for d in items if d.code == "invalid-decision")
    actions = await client.text_document_code_action_async(
        T.CodeActionParams(
            T.TextDocumentIdentifier(uri), bad.range, T.CodeActionContext(diagnostics=[bad])
        )
    )
    fix = next(a for a in actions or [] if isinstance(a, T.CodeAction) and a.is_preferred)
    assert fix.title == 'Change to "prompt"'
    assert fix.edit is not None and fix.edit.changes is not None
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == '"prompt"'
    fixed = text[: edit.range.start.character] + edit.new_text + text[edit.range.end.character :]
    replace_all(client, uri, fixed)
    assert not [d for d in await diagnostics(client, uri) if d.code == "invalid-decision"]


async def test_add_not_match_example(client: LanguageClient) -> None:
    text = 'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
    uri = open_doc(client, env_of(client).project / "n.rules", text)
    cursor = T.Range(T.Position(0, 3), T.Position(0, 3))
    actions = await client.text_document_code_action_async(
        T.CodeActionParams(T.TextDocumentIdentifier(uri), cursor, T.CodeActionContext([]))
    )
    add = next(a for a in actions or [] if a.title.startswith("Add a not_match example"))
    assert isinstance(add, T.CodeAction) and add.edit and add.edit.changes
    (edit,) = add.edit.changes[uri]
    assert edit.new_text == ', not_match = ["git"]'


async def test_outline(client: LanguageClient) -> None:
    uri = open_doc(client, env_of(client).project / "r.rules", RULES)
    symbols = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(T.TextDocumentIdentifier(uri))
    )
    assert symbols is not None
    names = [s.name for s in symbols]
    assert names == ["git push", "git push --force"]
    first = symbols[0]
    assert isinstance(first, T.DocumentSymbol)
    assert first.detail == "prefix_rule · prompt"
    assert [c.detail for c in first.children or []] == ["match", "not_match"]


async def test_explain_request_uses_every_layer(client: LanguageClient) -> None:
    env = env_of(client)
    (env.home / "rules" / "user.rules").write_text(
        'prefix_rule(pattern = ["curl"], decision = "forbidden", justification = "no network")\n'
    )
    draft = open_doc(client, env.project / "r.rules", RULES)
    result = plain(
        await client.protocol.send_request_async(
            "shellgate/explain", {"command": ["curl", "example.com"]}
        )
    )
    jsonschema.validate(result, SCHEMA)
    assert result["decision"] == "forbidden"
    (hit,) = result["segments"][0]["matched_rules"]
    assert hit["layer"] == "user" and hit["file"].endswith("user.rules")
    # A draft outside the layers counts only when explaining from it, and is labelled.
    alone = plain(
        await client.protocol.send_request_async(
            "shellgate/explain", {"script": "git push origin main", "approvalPolicy": "never"}
        )
    )
    assert alone["decision"] is None or alone["decision"] != "prompt"
    assert not [w for w in alone.get("warnings", []) if w["code"] == "rules-view"]
    result = plain(
        await client.protocol.send_request_async(
            "shellgate/explain",
            {"script": "git push origin main", "approvalPolicy": "never", "uri": draft},
        )
    )
    jsonschema.validate(result, SCHEMA)
    assert result["decision"] == "prompt"
    assert result["requirement"]["type"] == "forbidden"  # prompt under `never` is refused
    (hit,) = result["segments"][0]["matched_rules"]
    assert hit["layer"] == "draft"
    (note,) = [w for w in result["warnings"] if w["code"] == "rules-view"]
    assert "Codex does not load" in note["message"]
    assert "outside its rules folders" in note["message"]


def plain(value: Any) -> Any:
    """pygls hands custom results back as namedtuples: make them JSON data again."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


async def test_check_expectation_uses_every_layer(client: LanguageClient) -> None:
    env = env_of(client)
    text = "# check: curl example.com => prompt\n"
    uri = open_doc(client, env.project / "e.rules", text)
    (mismatch,) = [d for d in await diagnostics(client, uri) if d.code == "check-mismatch"]
    assert mismatch.message == "expected prompt, but Codex decides allow for `curl example.com`"
    (env.home / "rules" / "net.rules").write_text(
        'prefix_rule(pattern = ["curl"], decision = "prompt")\n'
    )
    replace_all(client, uri, text + "\n")  # any later look at the file sees the new layer
    for _ in range(100):
        if not [d for d in await diagnostics(client, uri) if d.code == "check-mismatch"]:
            return
        await asyncio.sleep(0.05)
        replace_all(client, uri, text)
    raise AssertionError("the user layer's rule never satisfied the # check:")


async def test_status_request(client: LanguageClient) -> None:
    env = env_of(client)
    (env.home / "rules" / "a.rules").write_text('prefix_rule(pattern = [["ls", "cat"]])\n')
    (env.project / ".codex" / "rules" / "b.rules").write_text(
        'prefix_rule(pattern = ["x"], decision = "deny")\n'
    )
    draft = env.project / "r.rules"
    open_doc(client, draft, RULES)
    status = plain(await client.protocol.send_request_async("shellgate/status", {}))
    assert status["rules"] == 2  # ls, cat (user): the rules that run; the draft does not
    assert status["layers"] == ["user", "project"]
    assert status["files"][0].endswith("a.rules") and status["files"][1].endswith("b.rules")
    assert status["drafts"] == [str(draft)] and status["unsaved"] == []
    (refused,) = status["refused"]
    assert refused["path"].endswith("b.rules") and refused["message"] == "invalid decision: deny"
    # An unsaved edit of a layer file shows, and is not counted either.
    layer = env.project / ".codex" / "rules" / "b.rules"
    open_doc(client, layer, 'prefix_rule(pattern = ["x"], decision = "allow")\n')
    status = plain(await client.protocol.send_request_async("shellgate/status", {}))
    assert status["rules"] == 2 and status["unsaved"] == [str(layer)]
    assert status["refused"][0]["path"] == str(layer)  # on disk it is still broken


async def test_the_server_checks_splits_against_bashs_grammar(client: LanguageClient) -> None:
    # `time` is a keyword to bash: the hover says what Codex's rules would see and what runs
    uri = open_doc(client, env_of(client).project / "r.rules", "# check: time -p rm -rf build\n")
    text = await hover(client, uri, 0, 12)
    assert text is not None and "Codex splits  `time -p rm -rf build`" in text
    assert "bash runs     `rm -rf build`" in text
    # the server process turned bashlex on: only bash's own grammar sees that bash rejects
    # `then` here, so the server judges it whole; a one-shot `shellgate explain` splits it
    result = plain(
        await client.protocol.send_request_async("shellgate/explain", {"script": "ls && then true"})
    )
    jsonschema.validate(result, SCHEMA)
    assert result["parse"] == "whole"
    assert "bashlex" in result["split_difference"]["why"]
    assert result["split_difference"]["bash_runs"] is None
