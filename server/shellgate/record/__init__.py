"""The record: every decision, whoever made it (rules, a hook, a reviewer, a person), as one
value (`entry.Entry`) that two sinks take (`sink.record`): the local hash-chained log
(`chain`, read by `shellgate log`) and, when Codex's `[otel]` says so, OpenTelemetry in Codex's
vocabulary (`codex_events`: the pure mapping; `spool`: kept on disk until sent; `otlp`: the
SDK's exporters, imported only by the process that sends). See docs/telemetry.md.
"""
