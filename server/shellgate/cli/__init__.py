"""The `shellgate` command: a thin dispatcher.

Each subcommand lives in its own module, imported only when it runs, so that the hot path
(`shellgate check`) pays for nothing it does not use.
"""

from __future__ import annotations

import os
import sys

from shellgate import __version__

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("shellgate.cli.check", "what Codex's `execpolicy check` says of a command"),
    "explain": ("shellgate.cli.explain", "the whole decision chain for a command, explained"),
    "lint": ("shellgate.cli.lint", "diagnostics for .rules files (text, json, sarif)"),
    "run": ("shellgate.cli.run", "run a command through rules, approval and the sandbox"),
    "review": ("shellgate.cli.review", "ask Codex's auto-reviewer about a command (runs nothing)"),
    "serve": ("shellgate.cli.serve", "the language server over stdio"),
    "agent": ("shellgate.cli.agent", "a model-driven agent whose commands pass the chain"),
    "mcp": ("shellgate.cli.mcp", "an MCP server (stdio) whose shell passes the chain; install"),
    "hook": ("shellgate.cli.hook",
             "the hook of Codex, Claude Code, Gemini CLI, Copilot CLI, VS Code's agent"),
    "sandbox": ("shellgate.cli.sandbox", "run a command in ShellGate's bubblewrap sandbox"),
    "import": ("shellgate.cli.import_", "Claude Code, Gemini CLI or VS Code allowlists as rules"),
    "replay": ("shellgate.cli.replay", "past commands (histories, transcripts) through the rules"),
    "log": ("shellgate.cli.log", "the record of every decision; verify its hash chain"),
}


def _usage() -> str:
    lines = ["usage: shellgate <command> [options]", "", "commands:"]
    for name, (_, text) in COMMANDS.items():
        lines.append(f"  {name:<8} {text}")
    lines.append("")
    lines.append("`shellgate <command> --help` for a command's options.")
    return "\n".join(lines)


# What a shell reports for a command killed by SIGPIPE (128 + 13), as `yes | head -1` does.
EXIT_CLOSED_OUTPUT = 141


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    module = None
    try:
        try:
            result, module = _dispatch(args)
        finally:  # argparse's SystemExit too: its --help is still in the buffer
            sys.stdout.flush()
    except BrokenPipeError:
        # Python ignores SIGPIPE, so a reader that went away (`shellgate ... | head -1`) is an
        # exception: end quietly as a CLI killed by SIGPIPE would. Not by restoring SIGPIPE:
        # it would also kill a hook whose socket to the editor closed, and a hook must answer.
        if not _output_closed():
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return EXIT_CLOSED_OUTPUT
    if argv is None and getattr(module, "EXIT_FAST", False):
        # The whole process is this command and it has closed nothing it needs closed: skip
        # the interpreter's teardown, about a tenth of a warm `shellgate check`.
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            return result
        os._exit(result)
    return result


def _output_closed() -> bool:
    """Whether stdout's reader has gone (a pipe or socket nobody reads any more)."""
    # deferred: select (~0.3 ms) only once a write has failed
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)  # POLLERR and POLLHUP are always reported
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (OSError, ValueError):
        return False


def _dispatch(args: list[str]) -> tuple[int, object]:
    """The command's exit status, and its module (None when none ran)."""
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return (0 if args else 2), None
    if args[0] in ("-V", "--version"):
        print(f"shellgate {__version__}")
        return 0, None
    entry = COMMANDS.get(args[0])
    if entry is None:
        print(f"shellgate: unknown command {args[0]!r}\n\n{_usage()}", file=sys.stderr)
        return 2, None
    try:
        __import__(entry[0])  # not importlib: its import (and warnings') costs a fast check
    except ModuleNotFoundError as exc:
        if exc.name != entry[0]:
            raise
        print(f"shellgate: `{args[0]}` is not available in this build", file=sys.stderr)
        return 2, None
    module = sys.modules[entry[0]]
    result: int = module.main(args[1:])
    return result, module
