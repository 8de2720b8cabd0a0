"""An OTLP/HTTP collector on 127.0.0.1 for the tests (standard library; protobuf bodies decoded
with opentelemetry-proto, which the proto exporter brings): keeps every POST, answers 200, or
500 / slowly when told to. `rows()` flattens what arrived: one row per log record, metric data
point and span (with its events), each with its resource and attributes typed as OTLP typed
them ("string", "int", "bool", "double"). With `tls` (an ssl.SSLContext, or gRPC's server
credentials) they answer over TLS only."""

from __future__ import annotations

import base64
import gzip
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(self, port: int = 0, tls: ssl.SSLContext | None = None) -> None:
        self.posts: list[dict[str, Any]] = []
        self.arrived: list[float] = []  # when each accepted POST was answered (time.time())
        self.status = 200
        self.delay = 0.0
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 10  # a client that stops mid-handshake holds only its own thread

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if (self.headers.get("Content-Encoding") or "").lower() == "gzip":
                    raw = gzip.decompress(raw)
                if outer.delay:
                    time.sleep(outer.delay)
                ctype = self.headers.get("Content-Type", "")
                if outer.status == 200:
                    with outer.lock:
                        outer.posts.append({"path": self.path, "content_type": ctype,
                                            "b64": base64.b64encode(raw).decode()})
                body = b"{}" if "json" in ctype else b""
                self.send_response(outer.status)
                self.send_header("Content-Type", ctype or "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                if outer.status == 200:
                    outer.arrived.append(time.time())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.scheme = "http"
        if tls is not None:  # the handshake in the connection's thread, not at accept
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True,
                                                do_handshake_on_connect=False)  # fmt: skip
            self.httpd.handle_error = lambda *_: None  # type: ignore[method-assign]
            self.scheme = "https"
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, signal: str) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/v1/{signal}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def rows(self) -> list[dict[str, Any]]:
        with self.lock:
            posts = list(self.posts)
        return [r for p in posts for r in rows_of(p)]


class GrpcReceiver:
    """The same over OTLP/gRPC (grpcio and opentelemetry-proto's service stubs): each Export
    is kept as a protobuf post of its signal."""

    def __init__(self, tls: Any = None) -> None:
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2 as logs
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc as logs_grpc
        from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2 as metrics
        from opentelemetry.proto.collector.metrics.v1 import (
            metrics_service_pb2_grpc as metrics_grpc,
        )
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as trace
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as trace_grpc

        self.posts: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        def keeper(signal: str, answer: Any) -> Any:
            def export(self: Any, request: Any, context: Any) -> Any:
                with outer.lock:
                    outer.posts.append({"path": f"/v1/{signal}",
                                        "content_type": "application/x-protobuf",
                                        "b64": base64.b64encode(
                                            request.SerializeToString()).decode()})  # fmt: skip
                return answer()

            return export

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        for signal, stubs, service, answer in (
            ("logs", logs_grpc, "LogsService", logs.ExportLogsServiceResponse),
            ("metrics", metrics_grpc, "MetricsService", metrics.ExportMetricsServiceResponse),
            ("traces", trace_grpc, "TraceService", trace.ExportTraceServiceResponse),
        ):
            servicer = type(service, (getattr(stubs, f"{service}Servicer"),),
                            {"Export": keeper(signal, answer)})  # fmt: skip
            getattr(stubs, f"add_{service}Servicer_to_server")(servicer(), self.server)
        if tls is None:
            self.port = self.server.add_insecure_port("127.0.0.1:0")
        else:
            self.port = self.server.add_secure_port("127.0.0.1:0", tls)
        self.server.start()

    def rows(self) -> list[dict[str, Any]]:
        with self.lock:
            posts = list(self.posts)
        return [r for p in posts for r in rows_of(p)]

    def close(self) -> None:
        self.server.stop(0)


def decode(post: dict[str, Any]) -> dict[str, Any]:
    raw = base64.b64decode(post["b64"])
    if "json" in post["content_type"]:
        data: dict[str, Any] = json.loads(raw)
        return data
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    kinds = {"logs": ExportLogsServiceRequest, "metrics": ExportMetricsServiceRequest,
             "traces": ExportTraceServiceRequest}  # fmt: skip
    message = kinds[post["path"].rsplit("/", 1)[-1]]()
    message.ParseFromString(raw)
    out: dict[str, Any] = MessageToDict(message, use_integers_for_enums=True)
    return out


def typed(value: dict[str, Any]) -> tuple[str, Any]:
    for key, kind in (("stringValue", "string"), ("boolValue", "bool"), ("doubleValue", "double")):
        if key in value:
            return kind, value[key]
    if "intValue" in value:
        return "int", int(value["intValue"])
    return "other", value


def attrs(items: list[dict[str, Any]] | None) -> dict[str, tuple[str, Any]]:
    return {a["key"]: typed(a.get("value", {})) for a in items or []}


def rows_of(post: dict[str, Any]) -> list[dict[str, Any]]:
    data = decode(post)
    out: list[dict[str, Any]] = []
    for res in data.get("resourceLogs", []):
        resource = attrs(res.get("resource", {}).get("attributes"))
        for scope in res.get("scopeLogs", []):
            for rec in scope.get("logRecords", []):
                a = attrs(rec.get("attributes"))
                out.append({"signal": "log", "name": a.get("event.name", ("", ""))[1],
                            "scope": scope.get("scope", {}).get("name"), "attrs": a,
                            "resource": resource, "severity": rec.get("severityText"),
                            "content_type": post["content_type"]})
    for res in data.get("resourceMetrics", []):
        resource = attrs(res.get("resource", {}).get("attributes"))
        for scope in res.get("scopeMetrics", []):
            for metric in scope.get("metrics", []):
                for kind in ("sum", "histogram", "gauge"):
                    for point in metric.get(kind, {}).get("dataPoints", []):
                        out.append({"signal": "metric", "name": metric["name"], "type": kind,
                                    "scope": scope.get("scope", {}).get("name"),
                                    "temporality": metric[kind].get("aggregationTemporality"),
                                    "attrs": attrs(point.get("attributes")),
                                    "value": int(point.get("asInt", 0)), "resource": resource})
    for res in data.get("resourceSpans", []):
        resource = attrs(res.get("resource", {}).get("attributes"))
        for scope in res.get("scopeSpans", []):
            for span in scope.get("spans", []):
                out.append({"signal": "span", "name": span["name"],
                            "attrs": attrs(span.get("attributes")), "resource": resource,
                            "events": [(e["name"], attrs(e.get("attributes")))
                                       for e in span.get("events", [])]})
    return out


if __name__ == "__main__":  # inside a test's network namespace: receiver.py OUT.jsonl PORT
    import sys

    out_path = sys.argv[1]
    receiver = Receiver(int(sys.argv[2]))
    seen = 0
    while True:
        time.sleep(0.05)
        with receiver.lock:
            fresh, seen = receiver.posts[seen:], len(receiver.posts)
        if fresh:
            with open(out_path, "a") as fh:
                fh.writelines(json.dumps(p) + "\n" for p in fresh)
