"""Codex's `[otel]` section (`config.toml` of the admin's and the user's tiers), typed.

    [otel]
    environment = "prod"              # resource attribute `env` (default "dev")
    log_user_prompt = false           # the prompt is exported as "[REDACTED]" unless true
    exporter         = { otlp-http = { endpoint = "http://c:4318/v1/logs", protocol = "json" } }
    trace_exporter   = { otlp-grpc = { endpoint = "http://c:4317" } }
    metrics_exporter = "none"

Each signal is configured on its own (`exporter` is the logs'); an exporter is `"none"`,
`"statsig"` (Codex's own analytics: ShellGate sends nothing there), `{ otlp-http = { endpoint,
protocol = "json" | "binary", headers } }` or `{ otlp-grpc = { endpoint, headers } }`. The user's
file wins key by key over the admin's (`/etc/codex/config.toml` applies where the user's is
silent), as Codex reads the two tiers. The endpoint is the full URL: nothing is appended.

Records, not dataclasses: the hook reads a kept copy of this on its start-up path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from typing import Any

KINDS = ("otlp-http", "otlp-grpc")
PROTOCOLS = ("json", "binary")
SIGNALS = {"exporter": "logs", "trace_exporter": "traces", "metrics_exporter": "metrics"}


class OtelError(ValueError):
    """An `[otel]` section Codex would refuse; the message names the file and the key."""


class Exporter(Record):
    kind: str  # otlp-http | otlp-grpc
    endpoint: str
    protocol: str = "binary"  # otlp-http only: json | binary
    headers: tuple[tuple[str, str], ...] = ()


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
                    "headers": list(x.headers)}

        return {"environment": self.environment, "log_user_prompt": self.log_user_prompt,
                "logs": one(self.logs), "traces": one(self.traces),
                "metrics": one(self.metrics)}  # fmt: skip


def from_json(data: Mapping[str, Any]) -> OtelConfig:
    """The inverse of OtelConfig.to_json (the kept copy)."""

    def one(x: Any) -> Exporter | None:
        if x is None:
            return None
        return Exporter(str(x["kind"]), str(x["endpoint"]), str(x["protocol"]),
                        tuple((str(k), str(v)) for k, v in x["headers"]))  # fmt: skip

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
    return Exporter(kind, endpoint, str(protocol),
                    tuple((str(k), str(v)) for k, v in headers.items()))  # fmt: skip
