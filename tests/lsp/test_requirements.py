"""requirements.toml in the editor, driven by a real LSP client (pytest-lsp) against the real
`shellgate serve` process: Codex's messages at the key, hover on a managed rule, completion of
keys and values. And the admin's tier seen from a user's rules file: the server runs in a
private user + mount namespace where a scratch folder is `/etc/codex` (the machine's /etc is
never written), and a user rule an admin's stricter rule covers is reported `managed-shadowed`,
while hovers and traces name each rule's tier."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import Env, diagnostics, env_of, hover, initialize, make_client, open_doc

VALID = """\
allowed_sandbox_modes = ["read-only", "workspace-write"]

[[rules.prefix_rules]]
pattern = [{ token = "git" }, { any_of = ["push", "fetch"] }]
decision = "prompt"
justification = "admin: talk to the remote only when asked"

[[rules.prefix_rules]]
pattern = [{ token = "rm" }]
decision = "forbidden"
colour = "red"
"""
INVALID = '[rules]\nprefix_rules = [{ pattern = [{ token = "echo" }], decision = "allow" }]\n'


async def _requirements_doc(client: LanguageClient, text: str, folder: str = ".") -> str:
    path = env_of(client).project / folder / "requirements.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return open_doc(client, path, text)


async def test_codex_messages_at_the_key(client: LanguageClient) -> None:
    uri = await _requirements_doc(client, INVALID)
    (d,) = await diagnostics(client, uri)
    path = env_of(client).project / "requirements.toml"
    assert d.message == (
        f"invalid rules in requirements (set by {path}): rules prefix_rule at index 0 has "
        "decision 'allow', which is not permitted in requirements.toml: Codex merges these "
        "rules with other config and uses the most restrictive result (use 'prompt', "
        "'prompt-user', or 'forbidden')"
    )
    assert d.severity == T.DiagnosticSeverity.Error and d.code == "requirements-invalid"
    # `decision` on line 2, column 51 (1-based): the whole key underlined
    assert d.range == T.Range(T.Position(1, 50), T.Position(1, 58))

    uri = await _requirements_doc(client, VALID, "admin")
    (w,) = await diagnostics(client, uri)
    assert (w.code, w.severity, w.message) == (
        "requirements-ignored", T.DiagnosticSeverity.Warning,
        "Codex ignores `rules.prefix_rules.1.colour` (an unrecognized setting)",
    )  # fmt: skip
    assert w.range == T.Range(T.Position(10, 0), T.Position(10, 6))


async def test_hover_on_a_managed_rule(client: LanguageClient) -> None:
    uri = await _requirements_doc(client, VALID)
    text = await hover(client, uri, 4, 3)  # `decision` of the first rule
    assert text is not None
    assert text.startswith("**managed prefix_rule** `git [push|fetch]` → **prompt**")
    assert "- justification: admin: talk to the remote only when asked" in text
    assert "outranks any user or project `allow`" in text
    assert 'no "don\'t ask again"' in text
    assert "Codex reads only /etc/codex/requirements.toml" in text  # this one is elsewhere
    text = await hover(client, uri, 9, 2)
    assert text is not None and "`rm` → **forbidden**" in text
    assert "refused under every approval policy" in text
    text = await hover(client, uri, 0, 3)
    assert text is not None and text.startswith("**allowed_sandbox_modes**: ")


async def _complete(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    result = await client.text_document_completion_async(
        T.CompletionParams(T.TextDocumentIdentifier(uri), T.Position(line, character))
    )
    assert isinstance(result, T.CompletionList)
    return [i.label for i in result.items]


async def test_completion_of_keys_and_values(client: LanguageClient) -> None:
    text = (
        "\n"  # line 0: a top-level key
        'allowed_approval_policies = [""]\n'  # line 1
        "[[rules.prefix_rules]]\n"
        'pattern = [{ token = "git" }, {  }]\n'  # line 3: a pattern token's keys
        "\n"  # line 4: a rule's keys
        "decision = \n"  # line 5: a decision
    )
    uri = await _requirements_doc(client, text)
    top = await _complete(client, uri, 0, 0)
    assert top[:5] == ["rules", "allowed_approval_policies", "allowed_sandbox_modes",
                       "permissions", "hooks"]  # fmt: skip
    assert "mcp_servers" in top
    assert await _complete(client, uri, 1, 30) == ["untrusted", "on-failure", "on-request",
                                                   "never"]  # fmt: skip
    assert await _complete(client, uri, 3, 32) == ["token", "any_of"]
    assert await _complete(client, uri, 4, 0) == ["pattern", "decision", "justification",
                                                  "canonical_matching"]  # fmt: skip
    assert await _complete(client, uri, 5, 11) == ["forbidden", "prompt", "prompt-user"]


# -- the admin's tier, under a scratch /etc/codex -----------------------------------------------

MOUNT = (
    'mkdir -p "$S/upper" "$S/work" && mount -t overlay overlay '
    '-o lowerdir=/etc,upperdir="$S/upper",workdir="$S/work" /etc && mkdir -p /etc/codex && '
    'mount --bind "$SYS" /etc/codex && exec "$@"'
)
_TIER = Path(tempfile.mkdtemp(prefix="shellgate-lsp-tier-"))
for _d in ("sys/rules", "scratch"):
    (_TIER / _d).mkdir(parents=True, exist_ok=True)
TIER_CONFIG = ClientServerConfig(
    server_command=[
        "unshare",
        "-rm",
        "sh",
        "-c",
        MOUNT,
        "sh",
        sys.executable,
        "-m",
        "shellgate",
        "serve",
    ],
    client_factory=make_client,
    server_env={**os.environ, "S": str(_TIER / "scratch"), "SYS": str(_TIER / "sys")},
)


@pytest_lsp.fixture(config=TIER_CONFIG)
async def tier_client(lsp_client: LanguageClient, tmp_path: Path) -> Any:
    env = Env(tmp_path, "code-server-1.100.3")
    lsp_client.env = env  # type: ignore[attr-defined]
    await initialize(lsp_client, env)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare")
async def test_user_rules_under_the_admin_tier(tier_client: LanguageClient) -> None:
    client = tier_client
    (_TIER / "sys" / "rules" / "admin.rules").write_text(
        'prefix_rule(pattern=["curl"], decision="prompt", justification="admin: network")\n'
    )
    (_TIER / "sys" / "requirements.toml").write_text(
        '[rules]\nprefix_rules = [{ pattern = [{ token = "git" }], decision = "forbidden", '
        'justification = "admin: no git" }]\n'
    )
    user = (
        'prefix_rule(pattern = ["git", "push"], decision = "allow")\n'
        'prefix_rule(pattern = ["curl", "-s"], decision = "allow")\n'
        'prefix_rule(pattern = ["ls"], decision = "allow")\n'
        'prefix_rule(pattern = ["curl"], decision = "forbidden")\n'
        "# check: git push origin\n"
    )
    path = env_of(client).home / "rules" / "default.rules"
    path.write_text(user)
    uri = open_doc(client, path, user)
    found = [d for d in await diagnostics(client, uri) if d.code == "managed-shadowed"]
    assert [(d.range.start.line, d.range.start.character) for d in found] == [(0, 22), (1, 22)]
    assert found[0].message == (
        "this rule never decides: the admin's `git` (forbidden, requirements.toml:2 "
        "(requirements)) matches every command it matches, and the stricter decision wins "
        "over every layer"
    )
    assert "`curl` (prompt, admin.rules:1 (system))" in found[1].message
    # the trace names each matched rule's tier
    text = await hover(client, uri, 4, 12)
    assert text is not None
    assert "[requirements] `git` forbidden" in text and "[user] `git push` allow" in text
