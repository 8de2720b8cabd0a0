"""Codex's `[otel]` as ShellGate reads it (the admin's and the user's config.toml), the kept
copy a hook reads instead of parsing TOML, and what a hook process imports: nothing of
OpenTelemetry ever, and no TOML parser while the files are unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shellgate.codexconfig.otel import Exporter, OtelConfig, OtelError, Tls, from_json, parse
from shellgate.record.sink import otel_config

HTTP = '{ otlp-http = { endpoint = "http://c:4318/v1/logs", protocol = "json" } }'


def test_each_signal_on_its_own_and_the_user_over_the_admin() -> None:
    admin = (b'[otel]\nenvironment = "prod"\nexporter = ' + HTTP.encode() +
             b'\nmetrics_exporter = { otlp-grpc = { endpoint = "http://c:4317", '
             b'headers = { "x-team" = "a" } } }\n')  # fmt: skip
    user = b'[otel]\nlog_user_prompt = true\nexporter = "none"\n'
    got = parse([("/etc/codex/config.toml", admin), ("/u/config.toml", user)])
    assert got == OtelConfig(
        environment="prod", log_user_prompt=True, logs=None, traces=None,
        metrics=Exporter("otlp-grpc", "http://c:4317", "binary", (("x-team", "a"),)))  # fmt: skip
    assert parse([("/u/config.toml", b'model = "o3"\n')]) is None
    assert parse([("/u/config.toml", b"[otel]\n")]) == OtelConfig()  # Codex's defaults


@pytest.mark.parametrize(("text", "message"), [
    ('exporter = "kafka"', '/u/config.toml: otel.exporter must be "none", "statsig"'),
    ('exporter = { otlp-udp = { endpoint = "x" } }', "unknown exporter 'otlp-udp'"),
    ('exporter = { otlp-http = { protocol = "json" } }', "otel.exporter.otlp-http.endpoint"),
    ('trace_exporter = { otlp-http = { endpoint = "x", protocol = "xml" } }',
     "protocol must be json or binary, not 'xml'"),
    ("environment = 3", "otel.environment must be a str"),
    ('exporter = { otlp-http = { endpoint = "x", tls = "ca.pem" } }',
     "/u/config.toml: otel.exporter.otlp-http.tls must be a table"),
    ('exporter = { otlp-grpc = { endpoint = "x", tls = { ca-certificate = 1 } } }',
     "/u/config.toml: otel.exporter.otlp-grpc.tls.ca-certificate must be a path (a string)"),
    ('trace_exporter = { otlp-http = { endpoint = "x", tls = { client-certificate = "c" } } }',
     "otel.trace_exporter.otlp-http.tls: client-certificate and client-private-key must both"),
])  # fmt: skip
def test_a_value_codex_would_refuse_is_named(text: str, message: str) -> None:
    with pytest.raises(OtelError, match=None) as err:
        parse([("/u/config.toml", f"[otel]\n{text}\n".encode())])
    assert message in str(err.value)


def test_tls_paths_as_codex_resolves_them(tmp_path: Path) -> None:
    """Each key optional; `~/` is the home folder, a relative path is the config file's
    folder's (Codex's AbsolutePathBuf); unknown keys ignored (serde's default); the kept
    copy carries them."""
    admin = (b'[otel]\nexporter = { otlp-http = { endpoint = "https://c/v1/logs", tls = { '
             b'ca-certificate = "pki/../ca.pem", client-certificate = "~/me.pem", '
             b'client-private-key = "/keys/me.pem", ca_certificate = "typo" } } }\n'
             b'trace_exporter = { otlp-grpc = { endpoint = "https://c:4317", tls = { '
             b'ca-certificate = "ca.pem" } } }\n')  # fmt: skip
    user = b'[otel]\nmetrics_exporter = { otlp-grpc = { endpoint = "https://c:4317", tls = {} } }\n'
    got = parse([("/etc/codex/config.toml", admin), ("/u/codex/config.toml", user)])
    assert got is not None and got.logs is not None and got.traces is not None
    assert got.logs.tls == Tls("/etc/codex/ca.pem", os.path.expanduser("~/me.pem"), "/keys/me.pem")
    assert got.traces.tls == Tls("/etc/codex/ca.pem")
    assert got.metrics == Exporter("otlp-grpc", "https://c:4317", "binary", (), Tls())
    assert from_json(json.loads(json.dumps(got.to_json()))) == got
    plain = parse([("/u/config.toml", f"[otel]\nexporter = {HTTP}\n".encode())])
    assert plain is not None and plain.logs is not None and plain.logs.tls is None
    old = plain.to_json()
    del old["logs"]["tls"]  # a copy kept before tls: not read as "no tls", parsed afresh
    with pytest.raises(KeyError):
        from_json(old)


def test_the_kept_copy_follows_the_files(tmp_path: Path) -> None:
    home, state = tmp_path / "codex", tmp_path / "state"
    home.mkdir()
    env = {"CODEX_HOME": str(home)}
    assert otel_config(env, str(state), system_dir=str(tmp_path / "none")) is None
    (home / "config.toml").write_text(f"[otel]\nexporter = {HTTP}\n")
    first = otel_config(env, str(state), system_dir=str(tmp_path / "none"))
    assert first is not None and first.logs is not None and first.logs.protocol == "json"
    kept = json.loads((state / "otel-config.json").read_text())
    assert kept["config"]["logs"]["endpoint"] == "http://c:4318/v1/logs"
    (home / "config.toml").write_text('[otel]\nexporter = "none"\nenvironment = "x"\n')
    second = otel_config(env, str(state), system_dir=str(tmp_path / "none"))
    assert second == OtelConfig(environment="x")  # changed file: parsed again


_EVENT = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
          "tool_input": {"command": "git status"}, "session_id": "s"}  # fmt: skip


def _imports(tmp_path: Path, config: str | None) -> str:
    home = tmp_path / "codex"
    (home / "rules").mkdir(parents=True, exist_ok=True)
    file = home / "config.toml"
    if config is not None and (not file.exists() or file.read_text() != config):
        file.write_text(config)  # (rewritten, it would be parsed again: a new mtime)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CODEX_HOME": str(home),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_RUNTIME_DIR": str(tmp_path)}  # fmt: skip
    # as `hook install` writes it (with the sandbox, `git status` is allowed: no question, so
    # no reviewer configuration is read either)
    done = subprocess.run([sys.executable, "-X", "importtime", "-I", "-m", "shellgate", "hook",
                           "claude-code", "--sandbox", "workspace-write"],
                          input=json.dumps({**_EVENT, "cwd": str(tmp_path)}),
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0 and "permissionDecision" in done.stdout, done.stderr[-2000:]
    return done.stderr


def test_a_hook_imports_no_opentelemetry(tmp_path: Path) -> None:
    without = _imports(tmp_path, None)
    assert "opentelemetry" not in without and "tomllib" not in without
    assert "shellgate.record.chain" in without  # the local record is written
    on = "[otel]\nexporter = { otlp-http = { endpoint = \"http://127.0.0.1:9/v1/logs\" } }\n"
    _imports(tmp_path, on)  # parses the file once, keeps a copy
    second = _imports(tmp_path, on)
    assert "opentelemetry" not in second and "tomllib" not in second
    assert "shellgate.record.spool" in second  # the event waits on disk for the sender
