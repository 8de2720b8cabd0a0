"""`shellgate serve`: the language server over stdio."""

from __future__ import annotations

import argparse
import logging
import sys

from shellgate.shell import bash_reading


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="shellgate serve",
        description="Run the ShellGate language server over stdio (for editors).",
    )
    parser.add_argument("--stdio", action="store_true", help="accepted for editors; the default")
    parser.parse_args(argv)
    # stdout is the protocol stream: keep the real one for pygls and send any stray print()
    # (ours or a library's) to stderr, where the client shows it in its log.
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    # deferred: pygls and the server's features (~550-650 ms) once the arguments are parsed
    from shellgate.lsp.server import build_server

    bash_reading.enable()  # long-lived: bash's own grammar checks every split it explains

    build_server().start_io(sys.stdin.buffer, protocol_out)
    return 0
