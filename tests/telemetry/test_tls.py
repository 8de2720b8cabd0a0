"""`tls = { ca-certificate, client-certificate, client-private-key }` of Codex's `otlp-http` and
`otlp-grpc` exporters, for real: throwaway certificates (pki.py), an OTLP receiver on
127.0.0.1 that answers over TLS only (and, for mTLS, only to a client certificate its CA
signed), the SDK's exporters as `shellgate log drain` builds them. A decision arrives with the
CA given; without it, or with the wrong client certificate, it does not, and stays spooled
until the configuration is right (never lost)."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pki
import pytest
from receiver import Receiver

from shellgate.codexconfig.otel import Exporter, OtelConfig, Tls
from shellgate.record import spool
from shellgate.record.drain import drain_now
from shellgate.record.entry import Entry
from shellgate.record.sink import record


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pki.make(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    codex = tmp_path / "codex"
    codex.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SHELLGATE_OTEL_TIMEOUT", "1")  # a refused handshake fails within 1 s
    for var in ("OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_KEY",
                "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"):
        monkeypatch.delenv(var, raising=False)
    yield codex


@pytest.fixture(autouse=True)
def machine_wide_bundle(certs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As many machines set it: requests would let it override the CA the config names."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(certs / "rogue-ca.pem"))


def server_context(certs: Path, *, clients: bool) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs / "server.pem", certs / "server-key.pem")
    if clients:  # mTLS: a client certificate signed by our CA, or no connection
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(certs / "ca.pem")
    return context


def configure(home: Path, kind: str, endpoint: str, protocol: str = "json",
              tls: str | None = None) -> None:  # fmt: skip
    body = f'endpoint = "{endpoint}"'
    if kind == "otlp-http":
        body += f', protocol = "{protocol}"'
    if tls is not None:
        body += f", tls = {{ {tls} }}"
    (home / "config.toml").write_text(f"[otel]\nexporter = {{ {kind} = {{ {body} }} }}\n")


def decide() -> None:
    """One decision recorded and spooled; nothing sent yet (the drain below sends)."""
    record(Entry("claude-code", "git status", "/tmp", "approved", "person", asked=True,
                 tool="Bash", hook_event="PermissionRequest"), send=False)  # fmt: skip


def pending(home: Path) -> int:
    return len(spool.pending(spool.folder_of(str(home.parent / "state" / "shellgate"))))


def decisions(rows: list[dict[str, object]]) -> list[object]:
    return [r["attrs"]["decision"] for r in rows  # type: ignore[index]
            if r["signal"] == "log" and r["name"] == "codex.tool_decision"]


@pytest.mark.parametrize("protocol", ["json", "binary"])
def test_https_arrives_with_the_ca_given_and_waits_without_it(
        home: Path, certs: Path, protocol: str) -> None:  # fmt: skip
    receiver = Receiver(tls=server_context(certs, clients=False))
    try:
        url = receiver.url("logs")
        assert url.startswith("https://127.0.0.1:")
        configure(home, "otlp-http", url, protocol)  # the system's roots: our CA is unknown
        decide()
        report = drain_now()
        assert report.sent == 0 and report.pending == 1 and report.failed, str(report)
        assert receiver.rows() == [] and pending(home) == 1  # kept on disk
        # relative to the config file's folder, as Codex resolves its paths
        (home / "pki").symlink_to(certs)
        configure(home, "otlp-http", url, protocol, 'ca-certificate = "pki/ca.pem"')
        report = drain_now()
        assert (report.sent, report.pending, report.failed) == (1, 0, None), str(report)
        assert decisions(receiver.rows()) == [("string", "approved")]
    finally:
        receiver.close()


@pytest.mark.parametrize("protocol", ["json", "binary"])
def test_mtls_takes_only_the_client_certificate_its_ca_signed(
        home: Path, certs: Path, protocol: str) -> None:  # fmt: skip
    receiver = Receiver(tls=server_context(certs, clients=True))
    try:
        url = receiver.url("logs")
        configure(home, "otlp-http", url, protocol)
        decide()
        for tls in (f'ca-certificate = "{certs}/ca.pem"',  # no client certificate
                    f'ca-certificate = "{certs}/ca.pem", '  # one another CA signed
                    f'client-certificate = "{certs}/rogue-client.pem", '
                    f'client-private-key = "{certs}/rogue-client-key.pem"'):  # fmt: skip
            configure(home, "otlp-http", url, protocol, tls)
            report = drain_now()
            assert report.sent == 0 and report.pending == 1 and report.failed, str(report)
            assert receiver.rows() == [] and pending(home) == 1
        configure(home, "otlp-http", url, protocol,
                  f'ca-certificate = "{certs}/ca.pem", client-certificate = '
                  f'"{certs}/client.pem", client-private-key = "{certs}/client-key.pem"')
        report = drain_now()
        assert (report.sent, report.pending, report.failed) == (1, 0, None), str(report)
        assert decisions(receiver.rows()) == [("string", "approved")]
    finally:
        receiver.close()


def test_a_tls_file_that_cannot_be_read_keeps_the_events(home: Path, certs: Path) -> None:
    configure(home, "otlp-http", "https://127.0.0.1:9/v1/logs", "json",
              'ca-certificate = "missing/ca.pem"')  # fmt: skip
    decide()
    report = drain_now()
    assert report.sent == 0 and report.pending == 1, str(report)
    assert f"tls.ca-certificate {home}/missing/ca.pem" in str(report.failed)


def test_a_client_certificate_never_goes_over_plain_http(certs: Path) -> None:
    """Codex's HTTP client with an identity is https-only; so is ShellGate's."""
    from shellgate.record.otlp import CannotExport, sender

    tls = Tls(str(certs / "ca.pem"), str(certs / "client.pem"), str(certs / "client-key.pem"))
    plain = OtelConfig(logs=Exporter("otlp-http", "http://127.0.0.1:9/v1/logs", "json", (), tls))
    with pytest.raises(CannotExport, match="over https:// only"):
        sender(plain, {})
    sender(plain._replace(logs=plain.logs._replace(endpoint="https://127.0.0.1:9/v1/logs")),
           {})  # fmt: skip


def test_grpc_over_mtls(home: Path, certs: Path) -> None:
    grpc = pytest.importorskip("grpc")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.grpc")
    from receiver import GrpcReceiver

    credentials = grpc.ssl_server_credentials(
        [((certs / "server-key.pem").read_bytes(), (certs / "server.pem").read_bytes())],
        root_certificates=(certs / "ca.pem").read_bytes(), require_client_auth=True)
    receiver = GrpcReceiver(credentials)
    try:
        endpoint = f"https://127.0.0.1:{receiver.port}"
        configure(home, "otlp-grpc", endpoint)  # the system's roots, no client certificate
        decide()
        report = drain_now()
        assert report.sent == 0 and report.pending == 1 and report.failed, str(report)
        assert receiver.rows() == [] and pending(home) == 1
        configure(home, "otlp-grpc", endpoint, tls=(
            f'ca-certificate = "{certs}/ca.pem", client-certificate = "{certs}/client.pem", '
            f'client-private-key = "{certs}/client-key.pem"'))  # fmt: skip
        report = drain_now()
        assert (report.sent, report.pending, report.failed) == (1, 0, None), str(report)
        assert decisions(receiver.rows()) == [("string", "approved")]
    finally:
        receiver.close()
