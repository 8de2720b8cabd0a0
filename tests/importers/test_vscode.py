"""VS Code `chat.tools.terminal.autoApprove` (JSONC): string and /regex/ keys, true, false,
null and the object form; translations, refusals, round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.importers.errors import ImportInputError
from shellgate.importers.model import Kind, Tool

from .helpers import decisions, imported, refused_of, rules_of, write

# As VS Code writes it (the "always allow" menu adds string keys), plus hand edits with
# comments and trailing commas; the wrappers and chains from microsoft/vscode#318347, #267669.
SETTINGS = """\
{
  // Terminal auto-approve
  "editor.fontSize": 13,
  "chat.tools.terminal.enableAutoApprove": true,
  "chat.tools.terminal.autoApprove": {
    "npm test": true,
    "git status": true,
    "/^git (log|show|diff)\\\\b/": true,
    "/^docker (ps|images)$/": {"approve": true, "matchCommandLine": false},
    "/^kubectl (delete|drain)$/": false,
    "rm": false,
    "/dangerous/": false,
    "/^kubectl get/i": true,
    "mkdir": null,
    "xargs": true,
    "git push": {"approve": false},
    "npm run build && npm test": {"approve": true, "matchCommandLine": true},
    /* my own */
    "/^make\\\\s+(lint|fmt)/": true,
  },
}
"""


@pytest.fixture
def result(tmp_path: Path):  # type: ignore[no-untyped-def]
    return imported(Tool.VSCODE, write(tmp_path / ".vscode" / "settings.json", SETTINGS))


def test_translations(result) -> None:  # type: ignore[no-untyped-def]
    assert rules_of(result) == {
        ("npm", "test"): "allow",
        ("git", "status"): "allow",
        ("git", "log"): "allow",
        ("git", "show"): "allow",
        ("git", "diff"): "allow",
        ("kubectl", "delete"): "prompt",  # exact `false`: the prefix asks about more (stricter)
        ("kubectl", "drain"): "prompt",
        ("rm",): "prompt",
        ("xargs",): "prompt",  # risky
        ("git", "push"): "prompt",
        ("make", "lint"): "allow",
        ("make", "fmt"): "allow",
    }


def test_refusals(result) -> None:  # type: ignore[no-untyped-def]
    refused = refused_of(result)
    assert set(refused) == {
        "/^docker (ps|images)$/",
        "/dangerous/",
        "/^kubectl get/i",
        "npm run build && npm test",
    }
    assert "exact command" in refused["/^docker (ps|images)$/"]
    assert "anywhere in the command" in refused["/dangerous/"]
    assert "ignores case" in refused["/^kubectl get/i"]
    assert (
        "matchCommandLine" in refused["npm run build && npm test"]
        or "shell syntax" in refused["npm run build && npm test"]
    )


def test_round_trip(result) -> None:  # type: ignore[no-untyped-def]
    assert decisions(result, "git status") == (Kind.ALLOW, Kind.ALLOW)
    assert decisions(result, "docker ps") == (Kind.ALLOW, Kind.ASK)  # exact: not written
    assert decisions(result, "kubectl delete --help") == (Kind.ASK, Kind.ASK)
    assert decisions(result, "make lintx") == (
        Kind.ALLOW,
        Kind.ASK,
    )  # no boundary in VS Code's regex
    assert decisions(result, "xargs") == (Kind.ALLOW, Kind.ASK)
    assert decisions(result, "rm") == (Kind.ASK, Kind.ASK)


def test_disabled_auto_approve_is_noted(tmp_path: Path) -> None:
    path = write(
        tmp_path / "settings.json",
        '{"chat.tools.terminal.enableAutoApprove": false,\n'
        ' "chat.tools.terminal.autoApprove": {"ls": true}}',
    )
    result = imported(Tool.VSCODE, path)
    assert any("approves nothing automatically" in n for n in result.source.notes)


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        (
            '{\n  "chat.tools.terminal.autoApprove": {\n    "ls": yes\n  }\n}',
            3,
            11,
            "unexpected character",
        ),
        (
            '{\n  "chat.tools.terminal.autoApprove": {"ls": {"aprove": true}}\n}',
            2,
            46,
            "unknown key `aprove`",
        ),
        ('{\n  "chat.tools.terminal.autoApprove": {"ls": "yes"}\n}', 2, 45, "true, false, null"),
        ('{\n  "chat.tools.terminal.autoApprove": ["ls"]\n}', 2, 38, "must be an object"),
        ("{\n  /* unterminated\n}", 2, 3, "unterminated /* comment"),
    ],
)
def test_bad_input_names_file_line_column(
    tmp_path: Path, text: str, line: int, column: int, words: str
) -> None:
    path = write(tmp_path / "settings.json", text)
    with pytest.raises(ImportInputError) as err:
        imported(Tool.VSCODE, path)
    assert (err.value.line, err.value.column) == (line, column), err.value
    assert words in err.value.message


def test_path_keys_and_empty_keys_as_vscode_reads_them(tmp_path: Path) -> None:
    # VS Code's _convertAutoApproveEntryToRegex: a path key takes either separator and an
    # optional leading `./`; an empty key never matches.
    text = '{"chat.tools.terminal.autoApprove": {"scripts/test.sh": true, "": true}}'
    result = imported(Tool.VSCODE, write(tmp_path / "settings.json", text))
    assert rules_of(result) == {("scripts/test.sh",): "allow"}
    assert "empty key" in refused_of(result)[""]
    assert decisions(result, "scripts/test.sh") == (Kind.ALLOW, Kind.ALLOW)
    assert decisions(result, "./scripts/test.sh") == (Kind.ALLOW, Kind.ASK)


def test_bad_regex_key(tmp_path: Path) -> None:
    text = '{"chat.tools.terminal.autoApprove": {"/^git (log/": true}}'
    result = imported(Tool.VSCODE, write(tmp_path / "settings.json", text))
    assert refused_of(result)["/^git (log/"].startswith("bad regex")
