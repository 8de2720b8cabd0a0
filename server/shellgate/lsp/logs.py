"""Server logs go to the client as window/logMessage: stdout is the protocol stream."""

from __future__ import annotations

import logging

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

_LEVELS = {
    logging.ERROR: T.MessageType.Error,
    logging.WARNING: T.MessageType.Warning,
    logging.INFO: T.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    """Forwards `shellgate.*` records to the client once the session is up."""

    def __init__(self, server: LanguageServer) -> None:
        super().__init__(logging.INFO)
        self._server = server

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = _LEVELS.get(record.levelno, T.MessageType.Log)
            self._server.window_log_message(T.LogMessageParams(kind, self.format(record)))
        except Exception:  # a log line must never take the server down
            self.handleError(record)


def install(server: LanguageServer) -> None:
    log = logging.getLogger("shellgate")
    log.setLevel(logging.INFO)
    log.propagate = False
    log.addHandler(ClientLogHandler(server))
