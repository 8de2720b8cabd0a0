"""What runs from the editor follows the rules Codex loads, as saved on disk: open drafts and
unsaved edits change what the editor shows, never what `shellgate.runCommand` decides.

Driven through the real `shellgate serve` process under both client profiles, with the real
sandbox: the write that must fail is tried and checked on disk."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as T
from pytest_lsp import LanguageClient

from .conftest import env_of, open_doc
from .test_features import plain

USER_RULES = (
    'prefix_rule(pattern = ["git", "push"], decision = "forbidden", '
    'justification = "pushes go through review")\n'
    'prefix_rule(pattern = ["echo"], decision = "allow")\n'
)
BROKEN = 'prefix_rule(pattern = ["ls"], decision = "deny")\n'
ALLOW_MKDIR = 'prefix_rule(pattern = ["mkdir"], decision = "allow")\n'


@pytest.fixture
def outside() -> Iterator[Path]:
    # /tmp is writable inside workspace-write (as in Codex): the outside folder is elsewhere.
    d = Path(tempfile.mkdtemp(prefix="shellgate-outside-", dir="/var/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


async def run(client: LanguageClient, cwd: Path, command: list[str]) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        T.ExecuteCommandParams(
            "shellgate.runCommand",
            [{"command": command, "cwd": str(cwd), "approvalPolicy": "never"}],
        )
    )
    out: dict[str, Any] = plain(result)
    return out


async def outcomes(client: LanguageClient, cwd: Path, target: Path) -> list[tuple[Any, ...]]:
    echo = await run(client, cwd, ["echo", "hi"])
    push = await run(client, cwd, ["git", "push", "origin", "main"])
    mkdir = await run(client, cwd, ["mkdir", str(target)])
    return [
        (
            echo["status"],
            echo["exitCode"],
            echo["stdout"],
            [a["sandboxed"] for a in echo["attempts"]],
        ),
        (push["status"], push["reason"]),
        (mkdir["exitCode"] != 0, [a["sandboxed"] for a in mkdir["attempts"]], target.exists()),
    ]


async def test_drafts_and_unsaved_edits_never_change_what_runs(
    client: LanguageClient, outside: Path
) -> None:
    env = env_of(client)
    user = env.home / "rules" / "user.rules"
    user.write_text(USER_RULES)
    before = await outcomes(client, env.project, outside / "first")
    assert before[0] == ("completed", 0, "hi\n", [False])  # the allow rule runs it unsandboxed
    assert before[1] == ("forbidden", "`git push origin main` rejected: pushes go through review")
    assert before[2] == (True, [True], False)  # sandboxed: the write outside is denied

    notes = env.project / "notes"
    notes.mkdir()
    broken_draft = open_doc(client, notes / "draft.rules", BROKEN)
    allow_draft = open_doc(client, notes / "allow.rules", ALLOW_MKDIR)
    open_doc(client, user, BROKEN)  # a half-typed edit of the user layer, not saved
    after = await outcomes(client, env.project, outside / "second")
    assert [after[0], after[1]] == [before[0], before[1]]
    assert after[2] == (True, [True], False), after[2]  # the draft's allow does not apply
    assert not (outside / "second").exists()
    assert user.read_text() == USER_RULES
    assert not (notes / "draft.rules").exists() and not (notes / "allow.rules").exists()

    # The editor shows the documents as typed, and says they are not what runs.
    hover = await client.text_document_hover_async(
        T.HoverParams(T.TextDocumentIdentifier(allow_draft), T.Position(0, 26))  # `"mkdir"`
    )
    assert hover is not None
    text = hover.contents.value  # type: ignore[union-attr]
    assert "not loaded by Codex (outside its rules folders)" in text
    status = plain(await client.protocol.send_request_async("shellgate/status", {}))
    assert status["rules"] == 2 and status["refused"] == []
    assert status["unsaved"] == [str(user)]
    assert sorted(status["drafts"]) == sorted(
        [str(notes / "allow.rules"), str(notes / "draft.rules")]
    )
    explained = plain(
        await client.protocol.send_request_async(
            "shellgate/explain", {"command": ["mkdir", "x"], "uri": broken_draft}
        )
    )
    views = [w["message"] for w in explained["warnings"] if w["code"] == "rules-view"]
    assert any("unsaved edits of " + str(user) in v for v in views), views
    assert any("draft " + str(notes / "draft.rules") in v for v in views), views
