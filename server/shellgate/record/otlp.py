"""Sends spooled decisions with the OpenTelemetry SDK and its OTLP exporters, configured from
Codex's `[otel]`: `otlp-http` with `protocol = "json"` (opentelemetry-exporter-otlp-json-http)
or `"binary"` (opentelemetry-exporter-otlp-proto-http), `otlp-grpc` where
opentelemetry-exporter-otlp-proto-grpc is installed. Imported only by the process that sends
(`shellgate log drain`, the language server): a hook never loads any of it.

Each signal is exported on its own, as Codex configures them: logs (`codex_events.logs`),
metrics (delta counters, `codex_events.metrics`), traces (the trace-safe span). The exporter's
own result says whether the collector took the batch; anything else keeps it spooled.

`tls` (Codex's `ca-certificate`, `client-certificate`, `client-private-key`): the files are
read when the sender is built; HTTP passes their paths to the exporter (the CA replaces the
system's roots, as in Codex), gRPC builds `grpc.ssl_channel_credentials` from their bytes.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from opentelemetry._logs import LogRecord, SeverityNumber
from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExportResult
from opentelemetry.sdk.metrics import Counter, MeterProvider
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    InMemoryMetricReader,
    MetricExportResult,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.util.instrumentation import InstrumentationScope

from shellgate.codexconfig.otel import Exporter, OtelConfig, Tls
from shellgate.record import codex_events
from shellgate.record.entry import entry_from_json

TIMEOUT = 5.0  # seconds per export (retries included): a detached sender, never a hook, waits


def _timeout() -> float:
    return float(os.environ.get("SHELLGATE_OTEL_TIMEOUT") or TIMEOUT)


def quiet() -> None:
    """The SDK logs every failed attempt on stderr; the drain's report says what failed."""
    logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)


class CannotExport(RuntimeError):
    """The `[otel]` exporter cannot be built now: the spool keeps what waits, the drain says why."""


class ExporterMissing(CannotExport):
    """The `[otel]` exporter needs a package that is not installed."""


def _read(path: str | None, key: str) -> bytes | None:
    """A `tls` file's bytes, read when the sender is built (as Codex reads them)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise CannotExport(f"tls.{key} {path}: {exc.strerror or exc}") from None


def _exporter(signal: str, x: Exporter) -> Any:
    headers = dict(x.headers)
    tls = x.tls or Tls()
    ca = _read(tls.ca_certificate, "ca-certificate")
    cert = _read(tls.client_certificate, "client-certificate")
    key = _read(tls.client_private_key, "client-private-key")
    if x.kind == "otlp-grpc":
        try:
            # deferred: the gRPC exporters, only for otlp-grpc (an extra: grpcio)
            from opentelemetry.exporter.otlp.proto.grpc import _log_exporter as glogs
            from opentelemetry.exporter.otlp.proto.grpc import metric_exporter as gmetrics
            from opentelemetry.exporter.otlp.proto.grpc import trace_exporter as gtraces
        except ImportError:
            raise ExporterMissing(
                "otlp-grpc needs opentelemetry-exporter-otlp-proto-grpc "
                "(pip install 'shellgate[otel-grpc]')") from None  # fmt: skip
        grpc_kinds: dict[str, Any] = {"logs": glogs.OTLPLogExporter,
                                      "metrics": gmetrics.OTLPMetricExporter,
                                      "traces": gtraces.OTLPSpanExporter}  # fmt: skip
        credentials = None
        if x.tls is not None:  # used over https:// only (http:// is plain, as tonic does)
            import grpc  # deferred: grpcio, with the gRPC exporters above

            credentials = grpc.ssl_channel_credentials(root_certificates=ca, private_key=key,
                                                       certificate_chain=cert)  # fmt: skip
        return grpc_kinds[signal](endpoint=x.endpoint, headers=headers or None,
                                  timeout=_timeout(), credentials=credentials)  # fmt: skip
    if x.protocol == "json":
        # deferred: the JSON exporters, only for protocol = "json"
        from opentelemetry.exporter.otlp.json.http import _log_exporter as jlogs
        from opentelemetry.exporter.otlp.json.http import metric_exporter as jmetrics
        from opentelemetry.exporter.otlp.json.http import trace_exporter as jtraces

        json_kinds: dict[str, Any] = {"logs": jlogs.OTLPLogExporter,
                                      "metrics": jmetrics.OTLPMetricExporter,
                                      "traces": jtraces.OTLPSpanExporter}  # fmt: skip
        kind = json_kinds[signal]
    else:
        # deferred: the protobuf exporters, only for protocol = "binary"
        from opentelemetry.exporter.otlp.proto.http import _log_exporter as plogs
        from opentelemetry.exporter.otlp.proto.http import metric_exporter as pmetrics
        from opentelemetry.exporter.otlp.proto.http import trace_exporter as ptraces

        proto_kinds: dict[str, Any] = {"logs": plogs.OTLPLogExporter,
                                       "metrics": pmetrics.OTLPMetricExporter,
                                       "traces": ptraces.OTLPSpanExporter}  # fmt: skip
        kind = proto_kinds[signal]
    if cert is not None and not x.endpoint.lower().startswith("https://"):
        # Codex's client with an identity is https-only: the certificate never goes in clear
        raise CannotExport(f"{x.endpoint}: a client certificate is sent over https:// only")
    extra: dict[str, Any] = {"certificate_file": tls.ca_certificate,
                             "client_certificate_file": tls.client_certificate,
                             "client_key_file": tls.client_private_key}  # fmt: skip
    if x.protocol == "binary" and tls.ca_certificate is not None:
        extra["session"] = _pinned_session(tls.ca_certificate)
    if signal == "metrics":
        extra["preferred_temporality"] = {Counter: AggregationTemporality.DELTA}
    return kind(endpoint=x.endpoint, headers=headers or None, timeout=_timeout(), **extra)


def _pinned_session(ca: str) -> Any:
    """A requests session that trusts `ca` only. requests lets REQUESTS_CA_BUNDLE or
    CURL_CA_BUNDLE (often set machine-wide) override a session's own `verify`
    (psf/requests#3829): the config's CA would be ignored. Proxies from the environment stay."""
    import requests  # deferred: with the protobuf exporter, which brings it

    class Pinned(requests.Session):
        def merge_environment_settings(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            settings: dict[str, Any] = super().merge_environment_settings(*args, **kwargs)
            settings["verify"] = ca
            return settings

    return Pinned()


Send = Callable[[Sequence[dict[str, Any]]], str | None]


def sender(config: OtelConfig, env: Mapping[str, str],
           dropped: Callable[[], int] = lambda: 0) -> Send:  # fmt: skip
    """A `spool.drain` sender: None when every configured signal was taken, else why not."""
    resource = Resource.create(codex_events.resource(config.environment, socket.gethostname()))
    signals = {"logs": config.logs, "metrics": config.metrics, "traces": config.traces}
    exporters = {s: _exporter(s, x) for s, x in signals.items() if x is not None}

    def send(items: Sequence[dict[str, Any]]) -> str | None:
        entries = [(entry_from_json(i["entry"]), i.get("hash"), int(i.get("seq") or 1))
                   for i in items]  # fmt: skip
        for signal, exporter in exporters.items():
            why = _SEND[signal](exporter, resource, entries, env, dropped())
            if why is not None:
                return f"{signal}: {why}"
        return None

    return send


Entries = Sequence[tuple[Any, str | None, int]]


def _logs(exporter: Any, resource: Resource, entries: Entries, env: Mapping[str, str],
          dropped: int) -> str | None:  # fmt: skip
    scope = InstrumentationScope(codex_events.LOG_SCOPE)
    batch = []
    for entry, digest, seq in entries:
        for attrs in codex_events.logs(entry, env, digest, seq):
            if dropped:
                attrs["shellgate.dropped"] = dropped
            record = LogRecord(observed_timestamp=int(entry.time * 1e9), severity_text="INFO",
                               severity_number=SeverityNumber.INFO, attributes=attrs)  # fmt: skip
            batch.append(ReadableLogRecord(record, resource, scope))
    if not batch:
        return None
    result = exporter.export(batch)
    ok = result is LogRecordExportResult.SUCCESS
    return None if ok else "the collector did not take the logs"


def _metrics(exporter: Any, resource: Resource, entries: Entries, env: Mapping[str, str],
             dropped: int) -> str | None:  # fmt: skip
    reader = InMemoryMetricReader(preferred_temporality={Counter: AggregationTemporality.DELTA})
    provider = MeterProvider(resource=resource, metric_readers=[reader])
    meter = provider.get_meter(codex_events.METRIC_SCOPE)
    counters: dict[str, Any] = {}
    for entry, _, _ in entries:
        for name, attrs in codex_events.metrics(entry, env):
            if name not in counters:
                counters[name] = meter.create_counter(name)
            counters[name].add(1, attrs)
    if not counters:
        return None
    data = reader.get_metrics_data()
    provider.shutdown()
    if data is None:
        return None
    result = exporter.export(data)
    ok = result is MetricExportResult.SUCCESS
    return None if ok else "the collector did not take the metrics"


def _traces(exporter: Any, resource: Resource, entries: Entries, env: Mapping[str, str],
            dropped: int) -> str | None:  # fmt: skip
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer(codex_events.SERVICE_NAME)
    for entry, digest, _ in entries:
        shape = codex_events.span(entry, digest)
        if shape is None:
            continue
        start = int(shape["start"] * 1e9)
        span = tracer.start_span(shape["name"], attributes=shape["attributes"], start_time=start)
        for name, attrs in shape["events"]:
            span.add_event(name, attrs, timestamp=start)
        span.end(end_time=start + int(shape["duration_ms"] * 1e6))
    spans = memory.get_finished_spans()
    provider.shutdown()
    if not spans:
        return None
    result = exporter.export(spans)
    return None if result is SpanExportResult.SUCCESS else "the collector did not take the spans"


_SEND: dict[str, Callable[..., str | None]] = {"logs": _logs, "metrics": _metrics,
                                               "traces": _traces}  # fmt: skip
