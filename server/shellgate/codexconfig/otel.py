"""Codex's `[otel]` section (`config.toml` of the admin's and the user's tiers), typed.

    [otel]
    environment = "prod"              # resource attribute `env` (default "dev")
    log_user_prompt = false           # the prompt is exported as "[REDACTED]" unless true
    exporter         = { otlp-http = { endpoint = "http://c:4318/v1/logs", protocol = "json" } }
    trace_exporter   = { otlp-grpc = { endpoint = "http://c:4317" } }
    metrics_exporter = "none"

Each signal is configured on its own (`exporter` is the logs'); an exporter is `"none"`,
`"statsig"` (Codex's own analytics: ShellGate sends nothing there), `{ otlp-http = { endpoint,
protocol = "json" | "binary", headers, tls } }` or `{ otlp-grpc = { endpoint, headers, tls } }`.
The user's file wins key by key over the admin's (`/etc/codex/config.toml` applies where the
user's is silent), as Codex reads the two tiers. The endpoint is the full URL: nothing is
appended. `tls = { ca-certificate, client-certificate, client-private-key }` are PEM files, each
optional; as Codex's AbsolutePathBuf, a leading `~/` is the home folder and a relative path is
taken from the folder of the config file that says it (kept here absolute).

Records, not dataclasses: the hook reads a kept copy of this on its start-up path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from typing import Any

KINDS = ("otlp-http", "otlp-grpc")
PROTOCOLS = ("json", "binary")
SIGNALS = {"exporter": "logs", "trace_exporter": "traces", "metrics_exporter": "metrics"}


class OtelError(ValueError):
    """An `[otel]` section Codex would refuse; the message names the file and the key."""


TLS_KEYS = ("ca-certificate", "client-certificate", "client-private-key")


class Tls(Record):
    """Absolute paths of PEM files; None where the key is not given."""

    ca_certificate: str | None = None  # replaces the system's roots
    client_certificate: str | None = None  # with client_private_key: mTLS
    client_private_key: str | None = None


class Exporter(Record):
    kind: str  # otlp-http | otlp-grpc
    endpoint: str
    protocol: str = "binary"  # otlp-http only: json | binary
    headers: tuple[tuple[str, str], ...] = ()
    tls: Tls | None = None


class OtelConfig(Record):
    environment: str = "dev"
    log_user_prompt: bool = False
    logs: Exporter | None = None
    traces: Exporter | None = None
    metrics: Exporter | None = None

    @property
    def exports(self) -> bool:
        return any(x is not None for x in (self.logs, self.traces, self.metrics))

    def to_json(self) -> dict[str, Any]:
        def one(x: Exporter | None) -> dict[str, Any] | None:
            if x is None:
                return None
            return {"kind": x.kind, "endpoint": x.endpoint, "protocol": x.protocol,
                    "headers": list(x.headers),
                    "tls": None if x.tls is None else list(x.tls)}  # fmt: skip

        return {"environment": self.environment, "log_user_prompt": self.log_user_prompt,
                "logs": one(self.logs), "traces": one(self.traces),
                "metrics": one(self.metrics)}  # fmt: skip


def from_json(data: Mapping[str, Any]) -> OtelConfig:
    """The inverse of OtelConfig.to_json (the kept copy)."""

    def one(x: Any) -> Exporter | None:
        if x is None:
            return None
        tls = x["tls"]  # a copy kept before tls existed: KeyError, parsed afresh
        return Exporter(str(x["kind"]), str(x["endpoint"]), str(x["protocol"]),
                        tuple((str(k), str(v)) for k, v in x["headers"]),
                        None if tls is None else Tls(*(None if p is None else str(p)
                                                       for p in tls)))  # fmt: skip

    return OtelConfig(str(data["environment"]), bool(data["log_user_prompt"]),
                      one(data["logs"]), one(data["traces"]), one(data["metrics"]))  # fmt: skip


def parse(files: Sequence[tuple[str, bytes]]) -> OtelConfig | None:
    """`[otel]` from (path, content) pairs, lowest precedence first; None when no file has
    one. Raises OtelError naming the file and key of a value Codex would refuse."""
    import tomllib  # deferred: ~10 ms, only when a config file mentions otel

    merged: dict[str, tuple[Any, str]] = {}
    found = False
    for path, raw in files:
        if b"otel" not in raw:
            continue
        try:
            doc = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise OtelError(f"{path}: {exc}") from None
        table = doc.get("otel")
        if table is None:
            continue
        if not isinstance(table, dict):
            raise OtelError(f"{path}: otel must be a table")
        found = True
        for key, value in table.items():
            merged[key] = (value, path)
    if not found:
        return None
    env = _typed(merged, "environment", str, "dev")
    prompt = _typed(merged, "log_user_prompt", bool, False)
    exporters = {SIGNALS[k]: _exporter(*merged[k], k) for k in SIGNALS if k in merged}
    return OtelConfig(env, prompt, exporters.get("logs"), exporters.get("traces"),
                      exporters.get("metrics"))  # fmt: skip


def _typed(merged: Mapping[str, tuple[Any, str]], key: str, kind: type, default: Any) -> Any:
    if key not in merged:
        return default
    value, path = merged[key]
    if not isinstance(value, kind):
        raise OtelError(f"{path}: otel.{key} must be a {kind.__name__}, not {value!r}")
    return value


def _exporter(value: Any, path: str, key: str) -> Exporter | None:
    where = f"{path}: otel.{key}"
    if value in ("none", "statsig"):
        return None  # statsig is Codex's own analytics: nothing for an organisation's collector
    if not isinstance(value, dict) or len(value) != 1:
        raise OtelError(f'{where} must be "none", "statsig", {{ otlp-http = {{ ... }} }} '
                        f"or {{ otlp-grpc = {{ ... }} }}, not {value!r}")  # fmt: skip
    ((kind, body),) = value.items()
    if kind not in KINDS or not isinstance(body, dict):
        raise OtelError(f"{where}: unknown exporter {kind!r} (known: none, statsig, "
                        f"{', '.join(KINDS)})")  # fmt: skip
    endpoint = body.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint:
        raise OtelError(f"{where}.{kind}.endpoint must be a URL")
    protocol = body.get("protocol", "binary")
    if kind == "otlp-http" and protocol not in PROTOCOLS:
        raise OtelError(f"{where}.{kind}.protocol must be json or binary, not {protocol!r}")
    headers = body.get("headers", {})
    if not isinstance(headers, dict):
        raise OtelError(f"{where}.{kind}.headers must be a table of strings")
    tls = _tls(body["tls"], path, f"{where}.{kind}.tls") if "tls" in body else None
    return Exporter(kind, endpoint, str(protocol),
                    tuple((str(k), str(v)) for k, v in headers.items()), tls)  # fmt: skip


def _tls(value: Any, path: str, where: str) -> Tls:
    """Codex's OtelTlsConfig: each key optional, other keys ignored (serde's default)."""
    if not isinstance(value, dict):
        raise OtelError(f"{where} must be a table {{ {', '.join(TLS_KEYS)} }}, not {value!r}")
    paths: list[str | None] = []
    for key in TLS_KEYS:
        given = value.get(key)
        if given is None:
            paths.append(None)
            continue
        if not isinstance(given, str):
            raise OtelError(f"{where}.{key} must be a path (a string), not {given!r}")
        if given == "~" or given.startswith("~/"):
            given = os.path.expanduser("~") + given[1:]
        base = os.path.dirname(os.path.abspath(path))
        paths.append(os.path.normpath(os.path.join(base, given)))
    tls = Tls(*paths)
    if (tls.client_certificate is None) != (tls.client_private_key is None):
        raise OtelError(f"{where}: client-certificate and client-private-key must both be "
                        "given for mTLS")  # fmt: skip
    return tls
