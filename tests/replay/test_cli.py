"""`shellgate replay` as a user and CI run it: real fixtures, real rules files, a real git
repository of rules for --against."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from shellgate.cli import main

FIX = Path(__file__).parent / "fixtures"
SCHEMA = json.loads((Path(__file__).parents[2] / "rules-schema" / "replay.schema.json")
                    .read_text("utf-8"))
RULES = """\
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["rm"], decision="forbidden", justification="use trash")
prefix_rule(pattern=["find"], decision="prompt")
prefix_rule(pattern=["terraform"], decision="forbidden")
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    path = tmp_path / "team.rules"
    path.write_text(RULES)
    return path


def test_decisions_equal_explain_json(capsys: pytest.CaptureFixture[str], rules: Path) -> None:
    code, out, _ = run(capsys, str(FIX), "--rules", str(rules), "--format", "json")
    assert code == 0
    data = json.loads(out)
    decisions = [d for d in data["decisions"] if isinstance(d["command"], str)]
    assert len(decisions) == data["distinct"] >= 15
    for d in decisions:
        extra = ["--sandbox-permissions", d["sandbox_permissions"]] if d["sandbox_permissions"] \
            else []
        assert main(["explain", "--json", "--rules", str(rules), *extra, "--shell",
                     d["command"]]) == 0
        explained = json.loads(capsys.readouterr().out)
        assert d["requirement"] == explained["requirement"]["type"], d["command"]
        matched = [f"{r['file']}:{r['line']}" for s in explained["segments"]
                   for r in s["matched_rules"]]
        assert d["rules"] == list(dict.fromkeys(matched)), d["command"]


def test_counts_coverage_and_never_hit(capsys: pytest.CaptureFixture[str], rules: Path) -> None:
    _, out, _ = run(capsys, str(FIX), "--rules", str(rules), "--format", "json")
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert data["commands"] == 36 and sum(data["outcomes"].values()) == 36
    assert data["sources"] == {"bash": 8, "claude-code": 3, "codex": 4, "fish": 5, "gemini": 2,
                               "shellgate": 5, "zsh": 9}
    by_line = {r["line"]: r for r in data["rules"]}
    # `git status --short`: bash 2, zsh, fish, codex, claude-code; `rm -rf build` in 5 sources.
    assert by_line[1]["hits"] == 6 and by_line[2]["hits"] == 5
    assert by_line[2]["last_seen"] == "2026-12-01T20:19:40Z"  # the ShellGate agent's, latest
    assert by_line[3]["hits"] == 1 and by_line[3]["examples"] == ["find . -name '*.tmp'"]
    assert [r["pattern"] for r in data["never_hit"]] == ["terraform"]
    assert data["outcomes"]["forbidden"] == 5


def test_text_report(capsys: pytest.CaptureFixture[str], rules: Path) -> None:
    code, out, _ = run(capsys, str(FIX), "--rules", str(rules))
    assert code == 0
    assert "Replayed 36 commands (21 distinct) from 8 files" in out
    assert f"{rules}:4  forbidden terraform  never matched" in out
    assert "Never matched: 1 of 4 rules" in out


def test_suggestions_count_what_they_remove_and_what_they_admit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    history = tmp_path / ".bash_history"
    history.write_text("git push origin main\n" * 3 + "git push\ngit push --tags\n"
                       "npm publish\nls\n")
    strict = tmp_path / "strict.rules"
    strict.write_text('prefix_rule(pattern=["git", "push", "--force"], decision="forbidden")\n')
    code, out, _ = run(capsys, str(history), "--rules", str(strict), "--approval-policy",
                       "untrusted", "--format", "json")
    assert code == 0
    found = {tuple(s["prefix"]): s for s in json.loads(out)["suggestions"]}
    push, publish = found[("git", "push")], found[("npm", "publish")]
    assert next(iter(found)) == ("git", "push")  # the one that asks most comes first
    assert push["prefix"] == ["git", "push"] and push["asked"] == 5 and push["removes"] == 5
    assert push["rule"] == 'prefix_rule(pattern=["git", "push"], decision="allow")'
    admitted = [v["command"] for v in push["admits"]]
    # The forbidden `--force` rule still holds; a spelling it misses and other forms do not.
    assert ["git", "push", "--force"] not in admitted
    assert ["git", "push", "origin", "--delete", "main"] in admitted
    assert ["git", "push", "x", "--force"] in admitted  # lint's evasion: the flag moved
    assert publish["prefix"] == ["npm", "publish"] and publish["asked"] == 1


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A Codex home whose rules folder is a git repository with one known change."""
    home = tmp_path / "home"
    (home / "rules").mkdir(parents=True)
    git(home, "init", "-q")
    (home / "rules" / "default.rules").write_text(RULES)
    git(home, "add", ".")
    git(home, "commit", "-qm", "one")
    # The change: rm goes from forbidden to prompt (loosened), git log becomes forbidden.
    (home / "rules" / "default.rules").write_text(
        RULES.replace('["rm"], decision="forbidden"', '["rm"], decision="prompt"')
        + 'prefix_rule(pattern=["git", "log"], decision="forbidden")\n')
    return home


def test_against_a_git_revision(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, out, _ = run(capsys, str(FIX), "--codex-home", str(repo), "--against", "HEAD",
                       "--format", "json")
    assert code == 0
    jsonschema.validate(json.loads(out), SCHEMA)
    against = json.loads(out)["against"]
    assert against["loosened"] == 5 and against["tightened"] == 2
    changes = {(c["from"], c["to"], c["command"]): c for c in against["changes"]}
    rm = changes[("forbidden", "prompt", "rm -rf build")]
    assert rm["count"] == 5 and rm["before_rules"] == ["HEAD:rules/default.rules:2"]
    assert rm["after_rules"] == [f"{repo}/rules/default.rules:2"]
    log = changes[("allow", "forbidden", "git log --oneline -3")]
    assert log["count"] == 2 and log["before_rules"] == []
    assert len(changes) == 2


@pytest.mark.parametrize(("fail_on", "expected"), [("loosened", 1), ("tightened", 1),
                                                   ("any", 1)])
def test_fail_on_a_change(capsys: pytest.CaptureFixture[str], repo: Path, fail_on: str,
                          expected: int) -> None:
    code, out, _ = run(capsys, str(FIX), "--codex-home", str(repo), "--against", "HEAD",
                       "--fail-on", fail_on)
    assert code == expected
    assert "Against HEAD: 7 past decisions change (5 loosened, 2 tightened)" in out
    assert "  forbidden → ask (5):" in out


def test_fail_on_only_tightened(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    git(repo, "commit", "-qam", "two")
    (repo / "rules" / "default.rules").write_text(
        (repo / "rules" / "default.rules").read_text()
        + 'prefix_rule(pattern=["ls"], decision="prompt")\n')
    args = [str(FIX), "--codex-home", str(repo), "--against", "HEAD", "--fail-on"]
    assert run(capsys, *args, "loosened")[0] == 0
    assert run(capsys, *args, "tightened")[0] == 1
    # Against the same rules: nothing changes, nothing fails.
    git(repo, "commit", "-qam", "three")
    code, out, _ = run(capsys, *args, "any")
    assert code == 0 and "Against HEAD: no past decision changes" in out


def test_against_a_file_and_a_folder(capsys: pytest.CaptureFixture[str], repo: Path,
                                     tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.rules").write_text(RULES)
    for spec in (str(other), str(other / "x.rules")):
        code, out, _ = run(capsys, str(FIX), "--codex-home", str(repo), "--against", spec,
                           "--format", "markdown", "--fail-on", "loosened")
        assert code == 1
        assert f"**Against `{spec}`: 5 loosened, 2 tightened.**" in out
        assert "| forbidden → ask | `rm -rf build` | 5 |" in out


def test_bad_rules_and_bad_revisions(capsys: pytest.CaptureFixture[str], repo: Path,
                                     tmp_path: Path) -> None:
    broken = tmp_path / "broken.rules"
    broken.write_text('prefix_rule(pattern=["ls"], decision="alow")\n')
    code, _, err = run(capsys, str(FIX), "--rules", str(broken))
    assert code == 3 and f"{broken}:1:" in err
    code, _, err = run(capsys, str(FIX), "--codex-home", str(repo), "--against", "nosuchrev")
    assert code == 2 and "nosuchrev" in err
    assert f"--against nosuchrev: not a file or folder, nor a revision the git repository " \
        f"{repo.resolve()} knows" in err and "rev-parse" not in err, err  # fmt: skip
    code, _, err = run(capsys, str(FIX), "--codex-home", str(repo), "--against", str(broken))
    assert code == 3 and f"--against {broken}" in err


def test_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, str(FIX), "--fail-on", "any")[0] == 2
    code, _, err = run(capsys, str(tmp_path / "nope"))
    assert code == 2 and "no such file or folder" in err
    unknown = tmp_path / "data.jsonl"
    unknown.write_text('{"a": 1}\n')
    code, _, err = run(capsys, str(unknown))
    assert code == 2 and "unknown history format" in err


def test_redact(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    history = tmp_path / ".bash_history"
    secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    history.write_text(f"export GITHUB_TOKEN={secret}\ncurl -H 'Authorization: Bearer s3cr3t' "
                       "https://x\ngit clone https://bob:hunter2@example.com/r\n")
    for fmt in ("text", "json", "markdown"):
        _, plain, _ = run(capsys, str(history), "--format", fmt, "--approval-policy",
                          "untrusted")
        _, masked, _ = run(capsys, str(history), "--format", fmt, "--approval-policy",
                           "untrusted", "--redact")
        for word in (secret, "s3cr3t", "hunter2"):
            assert word not in masked
        if fmt == "json":
            assert secret in plain
            assert "export GITHUB_TOKEN=***" in masked


def test_whole_process_writes_no_history(tmp_path: Path, rules: Path) -> None:
    """Only the rules' parse cache may be written (it holds rules, never a command)."""
    proc = subprocess.run([sys.executable, "-m", "shellgate", "replay", str(FIX), "--rules",
                           str(rules), "--format", "markdown"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                               "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    assert "| ask first |" in proc.stdout
    for path in tmp_path.rglob("*"):
        if path.is_file() and path != rules:
            assert b"sandboxed.txt" not in path.read_bytes(), path


def test_many_commands_are_decided_alike_in_parallel(tmp_path: Path, rules: Path) -> None:
    """Past PARALLEL_MIN distinct commands the work is forked: the same decisions result."""
    from shellgate.approval.context import ExecContext
    from shellgate.codexconfig.layers import LayerKind, RulesLayer, load_layers
    from shellgate.replay.engine import PARALLEL_MIN, replay
    from shellgate.replay.model import HistoryCommand

    policy = load_layers([RulesLayer(LayerKind.CLI, None, (str(rules),))])
    shapes = ("git status -{n}", "rm -rf b{n}", "find . -name x{n}", "echo {n} > f", "ls {n}")
    cmds = [HistoryCommand(shapes[i % 5].format(n=i), "bash", "h", i)
            for i in range(PARALLEL_MIN + 10)]  # fmt: skip
    one = replay(cmds, policy, ExecContext(), jobs=1)
    two = replay(cmds, policy, ExecContext(), jobs=2)
    assert one.commands == two.commands == len(cmds)
    assert {k: (e.decided.outcome, e.decided.rules) for k, e in one.entries.items()} == \
        {k: (e.decided.outcome, e.decided.rules) for k, e in two.entries.items()}


@pytest.mark.parametrize(("command", "masked"), [
    ("mysql -u root -phunter2 shop", "mysql -u root -p*** shop"),
    ("mysqldump --password=hunter2 shop", "mysqldump --password=*** shop"),
    ("mysql -p shop", "mysql -p shop"),  # -p alone prompts: `shop` is the database
    ("sshpass -p hunter2 ssh host", "sshpass -p *** ssh host"),
    ("sshpass -phunter2 ssh host", "sshpass -p*** ssh host"),
    ("curl -u bob:hunter2 https://x", "curl -u bob:*** https://x"),
    ("curl -su 'bob:hunter2' https://x", "curl -su 'bob:***' https://x"),
    ("curl --user=bob:hunter2 https://x", "curl --user=bob:*** https://x"),
    ("curl -u bob https://x", "curl -u bob https://x"),  # no password given: curl asks
    ("docker login -p hunter2 -u me reg.example", "docker login -p *** -u me reg.example"),
    ("docker login --password hunter2 reg", "docker login --password *** reg"),
    ("mytool --token hunter2 next", "mytool --token *** next"),
    ("git commit -m 'fix auth bug'", "git commit -m 'fix auth bug'"),  # a word, not a key
    ("docker run -u 1000:1000 img", "docker run -u 1000:1000 img"),
])  # fmt: skip
def test_redact_masks_the_password_not_the_word_after(command: str, masked: str) -> None:
    """Issue 18: each of these leaked the password and masked the harmless word after it."""
    from shellgate.replay.redact import redact

    assert redact(command) == masked


def test_rules_take_one_file_each(capsys: pytest.CaptureFixture[str], rules: Path) -> None:
    """`--rules FILE SOURCE`: SOURCE is a history to replay, not a second rules file."""
    code, out, _ = run(capsys, "--rules", str(rules), str(FIX), "--format", "json")
    assert code == 0
    assert json.loads(out)["distinct"] >= 15
