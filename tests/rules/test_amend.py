"""Amendments: the exact line Codex writes, dedupe, newlines, folders, locking, crash safety."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from starlark_go import Starlark

from shellgate.rules.amend import (
    AmendError,
    append_allow_prefix_rule,
    append_network_rule,
    prefix_rule_line,
)
from shellgate.rules.decision import Decision
from shellgate.rules.loader import load_policy

# (conformance id, tokens, the pattern in the line Codex 0.169.0 wrote for them), from
# ../shared/conformance/execpolicy_cases.jsonl: the `amend-*` rows, whose rules text is
# f'prefix_rule(pattern={pattern}, decision="allow")\n'.
CODEX_WRITTEN = [
    ("port-amend-written_line", ["echo", "Hello, world!"], '["echo", "Hello, world!"]'),
    ("amend-roundtrip-01", ["echo", "c\\d"], '["echo", "c\\\\d"]'),
    ("amend-roundtrip-02", ["echo", "é"], '["echo", "é"]'),
    ("amend-roundtrip-03", ["echo", "x\ny"], '["echo", "x\\ny"]'),
    ("amend-roundtrip-05", ["echo", "\x08"], '["echo", "\\b"]'),
    ("amend-roundtrip-09", ["echo", "\x7f"], '["echo", "\x7f"]'),
    ("amend-roundtrip-10", ["echo", "\u2028"], '["echo", "\u2028"]'),
    ("amend-roundtrip-11", ["echo", ""], '["echo", ""]'),
    ("amend-roundtrip-multi", ["git", "commit", "-m"], '["git", "commit", "-m"]'),
]

# serde_json's escapes beyond the cases above (checked against codex 0.169.0 by hand, see
# docs/amend.md): quote, tab, CR, form feed, other C0 as lowercase \u00xx.
SERDE_ESCAPES = [
    ('a"b', r'"a\"b"'),
    ("\t", r'"\t"'),
    ("\r", r'"\r"'),
    ("\x0c", r'"\f"'),
    ("\x00", r'"\u0000"'),
    ("\x01", r'"\u0001"'),
    ("\x1b", r'"\u001b"'),
    ("\x1f", r'"\u001f"'),
    ("/", '"/"'),
    ("日本", '"日本"'),
    ("\U0001f600", '"\U0001f600"'),
]

# One amendment line, strictly: what every line of an amended file must look like.
_TOKEN = r'"(?:[^"\\\x00-\x1f]|\\["\\bfnrt]|\\u00[0-1][0-9a-f])*"'
LINE_RE = re.compile(rf'prefix_rule\(pattern=\[{_TOKEN}(?:, {_TOKEN})*\], decision="allow"\)')


def load_patterns(path: Path) -> list[list[str]]:
    """Load an amended file with ShellGate's loader and, independently, with bare Starlark;
    both must agree. Returns each rule's pattern, in file order."""
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    for line in text[:-1].split("\n"):
        assert LINE_RE.fullmatch(line), f"not a well-formed amendment line: {line!r}"
    # Tokens come back as code points: the starlark-go binding cuts strings at a NUL when it
    # converts them to Python.
    module = Starlark()
    module.exec(
        "_seen = []\n"
        'def prefix_rule(pattern, decision = "allow"):\n'
        "    _seen.append(([[ord(c) for c in t.codepoints()] for t in pattern], decision))\n"
        + text,
        filename=str(path),
    )
    seen = module.get("_seen")
    assert all(decision == "allow" for _, decision in seen)
    patterns = [["".join(map(chr, token)) for token in pattern] for pattern, _ in seen]
    policy = load_policy([path])
    assert [[r.first, *(alts[0] for alts in r.rest)] for r in policy.rules] == patterns
    assert all(
        r.decision is Decision.ALLOW and all(len(a) == 1 for a in r.rest) for r in policy.rules
    )
    for pattern in patterns:
        assert policy.check([*pattern, "more"]).decision is Decision.ALLOW
    return patterns


@pytest.mark.parametrize(("case_id", "tokens", "pattern"), CODEX_WRITTEN)
def test_line_is_what_codex_wrote(
    tmp_path: Path, case_id: str, tokens: list[str], pattern: str
) -> None:
    path = tmp_path / "rules" / "default.rules"
    assert append_allow_prefix_rule(path, tokens) is True
    codex_text = f'prefix_rule(pattern={pattern}, decision="allow")\n'
    assert path.read_bytes() == codex_text.encode("utf-8"), case_id
    assert load_patterns(path) == [tokens]


@pytest.mark.parametrize(("token", "encoded"), SERDE_ESCAPES)
def test_tokens_are_serde_json_encoded_and_parse_back(
    tmp_path: Path, token: str, encoded: str
) -> None:
    assert (
        prefix_rule_line(["x", token]) == f'prefix_rule(pattern=["x", {encoded}], decision="allow")'
    )
    path = tmp_path / "a.rules"
    append_allow_prefix_rule(path, ["x", token])
    assert load_patterns(path) == [["x", token]]


def test_appends_after_existing_rules(tmp_path: Path) -> None:
    path = tmp_path / "default.rules"
    path.write_text('prefix_rule(pattern=["ls"], decision="allow")\n')
    append_allow_prefix_rule(path, ["echo", "Hello, world!"])
    assert path.read_text() == (
        'prefix_rule(pattern=["ls"], decision="allow")\n'
        'prefix_rule(pattern=["echo", "Hello, world!"], decision="allow")\n'
    )


def test_adds_missing_trailing_newline_first(tmp_path: Path) -> None:
    path = tmp_path / "default.rules"
    path.write_text('prefix_rule(pattern=["ls"], decision="allow")')
    append_allow_prefix_rule(path, ["echo", "hi"])
    assert path.read_text() == (
        'prefix_rule(pattern=["ls"], decision="allow")\n'
        'prefix_rule(pattern=["echo", "hi"], decision="allow")\n'
    )
    assert load_patterns(path) == [["ls"], ["echo", "hi"]]


def test_identical_line_is_not_written_twice(tmp_path: Path) -> None:
    path = tmp_path / "default.rules"
    assert append_allow_prefix_rule(path, ["git", "status"]) is True
    assert append_allow_prefix_rule(path, ["git", "status"]) is False
    assert append_allow_prefix_rule(path, ["git", "status", "-s"]) is True
    assert load_patterns(path) == [["git", "status"], ["git", "status", "-s"]]


def test_dedupe_compares_lines_like_rust_str_lines(tmp_path: Path) -> None:
    # A CRLF line is the same line (Rust's `lines()` drops the "\r"); an indented one is not.
    path = tmp_path / "default.rules"
    line = prefix_rule_line(["make"])
    path.write_bytes(f"{line}\r\n  {prefix_rule_line(['cargo'])}\n".encode())
    before = path.read_bytes()
    assert append_allow_prefix_rule(path, ["make"]) is False
    assert path.read_bytes() == before
    assert append_allow_prefix_rule(path, ["cargo"]) is True
    assert path.read_bytes() == before + prefix_rule_line(["cargo"]).encode() + b"\n"


def test_creates_missing_folder_and_file(tmp_path: Path) -> None:
    path = tmp_path / "codex-home" / "rules" / "default.rules"
    (tmp_path / "codex-home").mkdir()
    append_allow_prefix_rule(path, ["npm", "test"])
    assert load_patterns(path) == [["npm", "test"]]
    assert path.stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_creates_one_folder_level_only_like_codex(tmp_path: Path) -> None:
    path = tmp_path / "no-such-home" / "rules" / "default.rules"
    with pytest.raises(AmendError, match=r"failed to create policy directory .*no-such-home/rules"):
        append_allow_prefix_rule(path, ["ls"])
    assert not (tmp_path / "no-such-home").exists()


def test_empty_prefix_is_refused_before_touching_disk(tmp_path: Path) -> None:
    path = tmp_path / "rules" / "default.rules"
    with pytest.raises(AmendError, match=r"^prefix rule requires at least one token$"):
        append_allow_prefix_rule(path, [])
    assert not path.parent.exists()


def test_a_plain_string_is_not_a_token_list(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        append_allow_prefix_rule(tmp_path / "a.rules", "git")


def test_unencodable_token_is_refused(tmp_path: Path) -> None:
    # A lone surrogate (e.g. from a non-UTF-8 argv) has no UTF-8 form.
    with pytest.raises(AmendError, match="not valid Unicode"):
        append_allow_prefix_rule(tmp_path / "a.rules", ["cat", "\udcff"])
    assert not (tmp_path / "a.rules").exists()


def test_non_utf8_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "default.rules"
    path.write_bytes(b"# caf\xe9\n")
    with pytest.raises(AmendError, match=r"failed to read policy file .*default\.rules"):
        append_allow_prefix_rule(path, ["ls"])
    assert path.read_bytes() == b"# caf\xe9\n"


def test_unwritable_target_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "default.rules"
    path.mkdir()  # a directory where the file should be
    with pytest.raises(AmendError, match=r"failed to open policy file .*default\.rules"):
        append_allow_prefix_rule(path, ["ls"])


def test_network_rule_lines(tmp_path: Path) -> None:
    path = tmp_path / "rules" / "default.rules"
    append_allow_prefix_rule(path, ["curl"])
    assert append_network_rule(path, "  api.example.com ", "https", "allow", "Allow API calls")
    assert (
        append_network_rule(path, "api.example.com", "https", "allow", "Allow API calls") is False
    )
    append_network_rule(path, "10.0.0.1", "socks5_tcp", "deny")
    assert path.read_text() == (
        'prefix_rule(pattern=["curl"], decision="allow")\n'
        'network_rule(host="api.example.com", protocol="https", decision="allow", '
        'justification="Allow API calls")\n'
        'network_rule(host="10.0.0.1", protocol="socks5_tcp", decision="deny")\n'
    )


@pytest.mark.parametrize(
    ("host", "protocol", "decision", "justification", "message"),
    [
        (" ", "https", "allow", None, "host cannot be empty"),
        ("api.example.com", "socks5", "allow", None, "protocol must be one of"),
        ("api.example.com", "https", "ask", None, "invalid decision: ask"),
        ("api.example.com", "https", "allow", "  ", "justification cannot be empty"),
        ("*.example.com", "https", "allow", None, "wildcards are not allowed"),
        ("https://example.com", "https", "allow", None, "without scheme or path"),
        ("exa mple.com", "https", "allow", None, "cannot contain whitespace"),
    ],
)
def test_network_rule_that_would_not_load_is_refused(
    tmp_path: Path,
    host: str,
    protocol: str,
    decision: str,
    justification: str | None,
    message: str,
) -> None:
    path = tmp_path / "rules" / "default.rules"
    with pytest.raises(AmendError, match=re.escape(message)):
        append_network_rule(path, host, protocol, decision, justification)
    assert not path.exists()


# A worker process: append the rules named on its command line, in order.
_WORKER = textwrap.dedent(
    """
    import sys
    from shellgate.rules.amend import append_allow_prefix_rule
    path, worker, count, shared = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    for i in range(count):
        append_allow_prefix_rule(path, ["tool-" + worker, "sub", str(i), "quote\\"tab\\t"])
        if i % (count // shared) == 0:
            append_allow_prefix_rule(path, ["shared", str(i // (count // shared))])
    """
)


def test_eight_processes_appending_at_once(tmp_path: Path) -> None:
    path = tmp_path / "rules" / "default.rules"
    workers, count, shared = 8, 200, 20
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(path), str(w), str(count), str(shared)]
        )
        for w in range(workers)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * workers
    patterns = load_patterns(path)
    expected = [
        ["tool-" + str(w), "sub", str(i), 'quote"tab\t']
        for w in range(workers)
        for i in range(count)
    ]
    expected += [["shared", str(s)] for s in range(shared)]
    assert sorted(map(tuple, patterns)) == sorted(map(tuple, expected))  # each exactly once
    # Each worker's own rules stay in the order it wrote them.
    for w in range(workers):
        mine = [p[2] for p in patterns if p[0] == f"tool-{w}"]
        assert mine == [str(i) for i in range(count)]


_LOOPER = textwrap.dedent(
    """
    import sys
    from shellgate.rules.amend import append_allow_prefix_rule
    i = 0
    while True:
        append_allow_prefix_rule(sys.argv[1], ["run", str(i), "x" * 900, "é\\n" * 50])
        i += 1
    """
)


def test_killed_writer_never_leaves_a_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "default.rules"
    total = 0
    for round_ in range(12):
        proc = subprocess.Popen([sys.executable, "-c", _LOOPER, str(path)])
        # Let it get going (imports, then appends), then kill it at an arbitrary moment.
        deadline = time.monotonic() + 20
        while (not path.exists() or path.stat().st_size <= total) and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.001 * round_)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        data = path.read_bytes()
        if not data.endswith(b"\n"):
            # The kernel cut the write at a page boundary: the journal names the length before
            # it, and the next append (under the lock) cuts the unfinished tail off.
            journal = path.with_name(f".{path.name}.append")
            length = int(journal.read_text())
            assert length < len(data) and data[:length].endswith(b"\n")
            append_allow_prefix_rule(path, ["run", "repair", "x" * 900])
            data = path.read_bytes()
            assert data.endswith(b"\n") and not journal.exists()
        total = len(data)
        patterns = load_patterns(path)  # every line complete and well-formed
        assert all(p[0] == "run" and p[2] == "x" * 900 for p in patterns)
    assert len(patterns) > 12


def test_an_unfinished_tail_is_cut_off_by_the_next_append(tmp_path: Path) -> None:
    # What a write cut short by SIGKILL leaves: half a line, and the journal written before it.
    path = tmp_path / "default.rules"
    whole = 'prefix_rule(pattern=["ls"], decision="allow")\n'
    path.write_text(whole + 'prefix_rule(pattern=["gi')
    path.with_name(".default.rules.append").write_text(str(len(whole)))
    append_allow_prefix_rule(path, ["cat"])
    assert path.read_text() == whole + 'prefix_rule(pattern=["cat"], decision="allow")\n'
    assert not path.with_name(".default.rules.append").exists()
    # Without a journal a missing final newline is the user's, kept as Codex keeps it.
    path.write_text('prefix_rule(pattern=["ls"], decision="allow")')
    append_allow_prefix_rule(path, ["cat"])
    assert path.read_text() == whole + 'prefix_rule(pattern=["cat"], decision="allow")\n'


def test_lock_is_the_one_codex_takes(tmp_path: Path) -> None:
    # Codex locks with Rust's File::lock, i.e. flock(LOCK_EX): while another holder has it,
    # an amendment waits, then writes.
    import fcntl

    path = tmp_path / "default.rules"
    path.write_text("")
    with path.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from shellgate.rules.amend import append_allow_prefix_rule as a;"
                " a(sys.argv[1], ['ls'])",
                str(path),
            ]
        )
        time.sleep(1.0)
        assert proc.poll() is None, "the amendment did not wait for the lock"
        assert path.read_bytes() == b""
    assert proc.wait(timeout=20) == 0
    assert load_patterns(path) == [["ls"]]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_fixture_rows_are_consistent() -> None:
    # Guard against a typo in CODEX_WRITTEN: each pattern is the JSON array of its tokens.
    for case_id, tokens, pattern in CODEX_WRITTEN:
        assert json.loads(pattern) == tokens, case_id


def _codex_bin() -> str | None:
    # Local comparison only (not in CI): the real Codex CLI, if installed (see docs/amend.md).
    candidates = [
        os.environ.get("CODEX_BIN", ""),
        "/tmp/codex-oracle/node_modules/@openai/codex-linux-x64/vendor/"
        "x86_64-unknown-linux-musl/bin/codex",
    ]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


@pytest.mark.skipif(_codex_bin() is None, reason="the real codex binary is not installed")
@pytest.mark.parametrize("token", [t for t, _ in SERDE_ESCAPES if "\x00" not in t])
def test_written_line_matches_in_real_codex(tmp_path: Path, token: str) -> None:
    path = tmp_path / "default.rules"
    append_allow_prefix_rule(path, ["x", token])
    out = subprocess.run(
        [str(_codex_bin()), "execpolicy", "check", "--rules", str(path), "--", "x", token, "y"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == {
        "matchedRules": [{"prefixRuleMatch": {"matchedPrefix": ["x", token], "decision": "allow"}}],
        "decision": "allow",
    }


def test_amend_errors_are_rules_errors(tmp_path: Path) -> None:
    import pickle

    from shellgate.rules.errors import RulesError

    with pytest.raises(RulesError) as info:
        append_allow_prefix_rule(tmp_path / "missing" / "deeper" / "a.rules", ["ls"])
    err = info.value
    assert isinstance(err, AmendError) and err.code == "amend-failed"
    assert str(err).startswith(f"failed to create policy directory {tmp_path}/missing/deeper: ")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is AmendError and str(again) == str(err) and again.path == err.path


def test_readers_never_see_half_a_line(tmp_path: Path) -> None:
    # Readers take no lock (Codex's loader does not): every load while a writer appends must
    # succeed and see a growing set of whole rules.
    path = tmp_path / "default.rules"
    path.write_text("")
    writer = subprocess.Popen(
        [sys.executable, "-c", _WORKER, str(path), "0", "300", "10"],
    )
    seen = []
    while writer.poll() is None or not seen:
        policy = load_policy([path])
        seen.append(len(policy.rules))
    assert writer.wait(timeout=60) == 0
    assert seen == sorted(seen)
    assert len(load_patterns(path)) == 310
    assert len(set(seen)) > 1, "the reader never overlapped the writer"
