"""Throwaway certificates for the TLS tests (the `cryptography` package): a CA, a server
certificate for 127.0.0.1 and a client certificate it signed, and a second, unrelated CA with a
client certificate of its own (the wrong one). EC P-256 keys: generated in milliseconds."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write(folder: Path, stem: str, cert: x509.Certificate,
           key: ec.EllipticCurvePrivateKey) -> None:  # fmt: skip
    (folder / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / f"{stem}-key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))  # fmt: skip


def _issue(subject: str, key: ec.EllipticCurvePrivateKey, issuer: x509.Name,
           issuer_key: ec.EllipticCurvePrivateKey, *, ca: bool = False,
           server: bool = False) -> x509.Certificate:  # fmt: skip
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(issuer)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False).add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    elif not ca:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def make(folder: Path) -> Path:
    """Writes ca.pem, server.pem, client.pem, rogue-ca.pem, rogue-client.pem (each with its
    `-key.pem`) into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for prefix in ("", "rogue-"):
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = _name(f"ShellGate test {prefix}CA")
        ca = _issue(f"ShellGate test {prefix}CA", ca_key, ca_name, ca_key, ca=True)
        _write(folder, f"{prefix}ca", ca, ca_key)
        client_key = ec.generate_private_key(ec.SECP256R1())
        _write(folder, f"{prefix}client",
               _issue(f"{prefix}client", client_key, ca_name, ca_key), client_key)  # fmt: skip
        if not prefix:
            server_key = ec.generate_private_key(ec.SECP256R1())
            _write(folder, "server",
                   _issue("127.0.0.1", server_key, ca_name, ca_key, server=True), server_key)
    return folder
