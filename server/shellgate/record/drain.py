"""Sends what the spool holds now, with `[otel]` as configured now: `shellgate log drain` (the
detached sender a recording process starts) and the language server (every 30 s) call this."""

from __future__ import annotations

import os
from collections.abc import Mapping

from shellgate.codexconfig.otel import OtelError
from shellgate.record import chain, spool
from shellgate.record.sink import otel_config


class Report:
    def __init__(self, sent: int, pending: int, dropped: int, failed: str | None,
                 busy: bool = False) -> None:  # fmt: skip
        self.sent, self.pending, self.dropped = sent, pending, dropped
        self.failed, self.busy = failed, busy

    def __str__(self) -> str:
        text = f"sent {self.sent}, waiting {self.pending}, dropped {self.dropped}"
        if self.busy:
            text += " (another process is sending)"
        if self.failed:
            text += f"; the collector: {self.failed}"
        return text


def drain_now(env: Mapping[str, str] | None = None, linger: float = 0.0) -> Report:
    env = os.environ if env is None else env
    state = chain.state_dir(env)
    folder = spool.folder_of(state)
    if not spool.pending(folder):
        return Report(0, 0, spool.dropped(folder), None)
    try:
        config = otel_config(env, state)
    except OtelError as exc:
        return Report(0, len(spool.pending(folder)), spool.dropped(folder), f"[otel]: {exc}")
    if config is None or not config.exports:
        # kept for when [otel] is configured again (bounded as ever)
        return Report(0, len(spool.pending(folder)), spool.dropped(folder),
                      "no [otel] exporter is configured now")  # fmt: skip
    # deferred: the OpenTelemetry SDK and exporters (~150 ms), only to send
    from shellgate.record.otlp import CannotExport, quiet, sender

    quiet()

    try:
        send = sender(config, env, lambda: spool.dropped(folder))
    except CannotExport as exc:
        return Report(0, len(spool.pending(folder)), spool.dropped(folder), str(exc))
    done = spool.drain(folder, send, linger)
    return Report(done.sent, len(spool.pending(folder)), spool.dropped(folder), done.failed,
                  done.busy)  # fmt: skip
