"""rules-schema/requirements.schema.json (for TOML editors) against ShellGate's parser of
requirements.toml: every valid example passes both, every invalid one fails both, and the
schema's choices are the parser's. The same examples through the real Taplo (the engine of
Even Better TOML; @taplo/cli from tests/vscode/package.json, installed by tests/vscode/setup.sh),
`#:schema` directive included."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import jsonschema
import pytest

from shellgate.codexconfig.requirements import (
    APPROVAL_POLICIES,
    KNOWN_KEYS,
    SANDBOX_MODES,
    RequirementsError,
    parse_requirements,
)

ROOT = Path(__file__).parents[2]
SCHEMA_FILE = ROOT / "rules-schema" / "requirements.schema.json"
SCHEMA = json.loads(SCHEMA_FILE.read_text())
TAPLO = ROOT / "tests" / "vscode" / "node_modules" / ".bin" / "taplo"
RULE = '[[rules.prefix_rules]]\npattern = [{ token = "git" }]\n'

VALID = {
    "empty": "",
    "forbidden": RULE + 'decision = "forbidden"\njustification = "admin: no git"\n',
    "prompt any_of": '[[rules.prefix_rules]]\npattern = [{ any_of = ["git", "hg"] }, '
    '{ token = "push" }]\ndecision = "prompt"\ncanonical_matching = true\n',
    "prompt-user inline": '[rules]\nprefix_rules = [{ pattern = [{ token = "rm" }], '
    'decision = "prompt-user" }]\n',
    "unknown keys are warnings": "#:schema ./requirements.schema.json\ncolour = 1\n"
    '[rules]\nprefix_rules = [{ pattern = [{ token = "rm", x = 1 }], decision = "prompt", '
    "y = 2 }]\nz = 3\n",
    "constraints": 'allowed_approval_policies = ["on-request", "never"]\n'
    'allowed_sandbox_modes = ["read-only", "workspace-write"]\n',
    "deny_read": '[permissions.filesystem]\ndeny_read = ["/etc/shadow", "secrets/**"]\n',
    "hooks": '[hooks]\nmanaged_dir = "/opt/hooks"\n[[hooks.PreToolUse]]\nmatcher = "Bash"\n'
    '[[hooks.PreToolUse.hooks]]\ncommand = "shellgate hook codex"\ntimeout = 30\n',
    "other known tables": '[features]\nanything = true\n[mcp_servers.x]\ncommand = "y"\n',
}
INVALID = {
    "allow": RULE + 'decision = "allow"\n',
    "unknown decision": RULE + 'decision = "deny"\n',
    "no decision": RULE,
    "no pattern": '[[rules.prefix_rules]]\ndecision = "prompt"\n',
    "empty pattern": '[[rules.prefix_rules]]\npattern = []\ndecision = "prompt"\n',
    "empty prefix_rules": "[rules]\nprefix_rules = []\n",
    "rules without prefix_rules": "[rules]\n",
    "rules not a table": "rules = 1\n",
    "token and any_of": '[[rules.prefix_rules]]\npattern = [{ token = "a", any_of = ["b"] }]\n'
    'decision = "prompt"\n',
    "neither token nor any_of": '[[rules.prefix_rules]]\npattern = [{ x = "a" }]\n'
    'decision = "prompt"\n',
    "empty token": '[[rules.prefix_rules]]\npattern = [{ token = "" }]\ndecision = "prompt"\n',
    "empty any_of": '[[rules.prefix_rules]]\npattern = [{ any_of = [] }]\ndecision = "prompt"\n',
    "token not a string": "[[rules.prefix_rules]]\npattern = [{ token = 1 }]\n"
    'decision = "prompt"\n',
    "blank justification": RULE + 'decision = "prompt"\njustification = "  "\n',
    "canonical_matching not a bool": RULE + 'decision = "prompt"\ncanonical_matching = "yes"\n',
    "empty policies": "allowed_approval_policies = []\n",
    "granular as a string": 'allowed_approval_policies = ["granular"]\n',
    "unknown policy": 'allowed_approval_policies = ["sometimes"]\n',
    "no read-only": 'allowed_sandbox_modes = ["workspace-write"]\n',
    "unknown mode": 'allowed_sandbox_modes = ["read-only", "sandboxed"]\n',
    "deny_read not a list": '[permissions.filesystem]\ndeny_read = "/etc/shadow"\n',
    "hook without command": "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntimeout = 3\n",
    "hook timeout a string": '[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ncommand = "x"\n'
    'timeout = "3"\n',
}


def _schema_ok(text: str) -> bool:
    try:
        jsonschema.validate(tomllib.loads(text), SCHEMA)
    except jsonschema.ValidationError:
        return False
    return True


def _parser_ok(text: str) -> bool:
    try:
        parse_requirements(text, "/etc/codex/requirements.toml", base=Path("/etc/codex"))
    except RequirementsError:
        return False
    return True


def test_the_schema_is_valid_draft_07() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_passes_both(name: str) -> None:
    assert (_schema_ok(VALID[name]), _parser_ok(VALID[name])) == (True, True)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_fails_both(name: str) -> None:
    assert (_schema_ok(INVALID[name]), _parser_ok(INVALID[name])) == (False, False)


def test_the_choices_are_the_parsers() -> None:
    props = SCHEMA["properties"]
    assert set(props) <= KNOWN_KEYS
    policies = props["allowed_approval_policies"]["items"]["enum"]
    assert policies == [p for p in APPROVAL_POLICIES if p != "granular"]
    assert props["allowed_sandbox_modes"]["items"]["enum"] == list(SANDBOX_MODES)
    decisions = SCHEMA["definitions"]["prefixRule"]["properties"]["decision"]["enum"]
    assert sorted(decisions) == ["forbidden", "prompt", "prompt-user"]


@pytest.mark.skipif(
    not TAPLO.exists() or shutil.which("node") is None, reason="needs tests/vscode's npm ci"
)
def test_taplo_agrees(tmp_path: Path) -> None:
    """Each example checked by Taplo with the schema as a `#:schema` directive (a path next to
    the file, as an admin would write it): Taplo refuses exactly the invalid ones."""
    shutil.copy(SCHEMA_FILE, tmp_path / "requirements.schema.json")
    examples = {**{f"valid-{k}": v for k, v in VALID.items()},
                **{f"invalid-{k}": v for k, v in INVALID.items()}}  # fmt: skip
    files = []
    for i, (name, text) in enumerate(sorted(examples.items())):
        path = tmp_path / f"{i:02d}-{name.replace(' ', '_')}.toml"
        if not text.startswith("#:schema"):
            text = "#:schema ./requirements.schema.json\n" + text
        path.write_text(text)
        files.append(path)
    run = subprocess.run(
        [str(TAPLO), "check", "--colors", "never", *(str(f) for f in files)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "RUST_LOG": "error"},
    )  # fmt: skip
    refused = set(re.findall(r'invalid file error=.*? path="([^"]+)"', run.stderr))
    assert {Path(p).name for p in refused} == {
        f.name for f in files if f.name.split("-", 1)[1].startswith("invalid")
    }, run.stderr
