"""The terminal approver: Codex's approval overlay as a question on the terminal (C.9).

Keys: y (yes, once), p (yes, and don't ask again for the prefix / allow the host), a (yes for
this session), d (no, continue / block the host), Esc or n (no, and stop). Digits pick by number.
After p, the "don't ask again" ladder (shellgate.replay.ladder) offers the rule to write,
Codex's proposal first and the default.
Untrusted text (the command, the model's justification, a host) is shown escaped: no terminal
control sequences or bidirectional overrides reach the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import termios
import tty
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TextIO

from shellgate.approval.question import Answer, ApprovalRequest, Choice
from shellgate.approval.review import ReviewDecision
from shellgate.rules.shlex_rs import join
from shellgate.untrusted import escape_one_line

if TYPE_CHECKING:
    from shellgate.approval.amendments import Rung

def render(request: ApprovalRequest) -> str:

    lines = [request.title, ""]
    if request.reason:
        lines.append(f"  Reason: {escape_one_line(request.reason)}")
    lines.append(f"  $ {escape_one_line(join(request.command))}")
    lines.append(f"    in {escape_one_line(request.cwd)}")
    for rule in request.matched_rules:
        where = rule.source or "heuristics"
        where += f", {rule.layer}" if rule.layer else ""
        lines.append(f"  Rule: {rule.decision} `{escape_one_line(join(rule.prefix))}` ({where})")
    if request.amendment_text:
        lines.append(f"  Would add: {escape_one_line(request.amendment_text)}")
    if request.retry_permission:
        lines.append(f"  Retry with: {escape_one_line(request.retry_permission)}")
    for note in request.notes:
        lines.append(f"  Note: {escape_one_line(note)}")
    lines.append("")
    for i, choice in enumerate(request.choices, 1):
        key = "Esc/n" if choice.key == "n" else choice.key
        lines.append(f"  {i}. {escape_one_line(choice.label)}  [{key}]")
    return "\n".join(lines) + "\n"


def pick(request: ApprovalRequest, key: str) -> Choice | None:
    """The choice a key press (or a typed line) selects, None when it selects nothing."""
    k = key.strip().lower() if key not in ("\x1b", "\x1b\n") else "n"
    if k in ("esc", "escape"):
        k = "n"
    if k.isdigit() and 1 <= int(k) <= len(request.choices):
        return request.choices[int(k) - 1]
    return next((c for c in request.choices if c.key == k), None)


@contextlib.contextmanager
def _cbreak(fd: int) -> Iterator[bool]:
    if not os.isatty(fd):
        yield False
        return
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield True
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class TerminalApprover:
    """Asks on a terminal: one key press on a tty, one line otherwise. EOF means no."""

    def __init__(self, infile: TextIO | None = None, outfile: TextIO | None = None) -> None:
        self.infile = infile or sys.stdin
        self.outfile = outfile or sys.stderr
        self._lock = asyncio.Lock()  # one question on the screen at a time
        self._pending = b""  # typed ahead: the answers to the next questions

    async def request_approval(self, request: ApprovalRequest) -> Answer:
        async with self._lock:
            self.outfile.write("\n" + render(request))
            fd = self.infile.fileno()
            with _cbreak(fd) as raw:
                while True:
                    self.outfile.write("  Press a key: " if raw else "  Answer (key or number): ")
                    self.outfile.flush()
                    got = await self._read(fd, raw)
                    if got is None:  # EOF: nobody can answer
                        self.outfile.write("\n")
                        return Answer(
                            ReviewDecision.DENIED
                            if any(c.decision is ReviewDecision.DENIED for c in request.choices)
                            else ReviewDecision.ABORT,
                            unanswered="no answer: standard input is closed",
                        )
                    choice = pick(request, got)
                    if raw:
                        self.outfile.write("\n")
                    if choice is not None:
                        self.outfile.write(f"  -> {choice.label}\n")
                        self.outfile.flush()
                        if (choice.decision is ReviewDecision.APPROVED_EXECPOLICY_AMENDMENT
                                and request.ladder is not None):  # fmt: skip
                            return await self._climb(request.ladder, choice, fd, raw)
                        return Answer.of(choice)
                    self.outfile.write("  Not one of the choices.\n")

    async def _climb(
        self, rungs_of: Callable[[], Sequence[Rung]], choice: Choice, fd: int, raw: bool
    ) -> Answer:
        """The "don't ask again" ladder: which rule to write (Enter or EOF: Codex's own)."""
        # deferred: replay.ladder (~35-40 ms) only when the terminal asks
        from shellgate.replay.ladder import describe
        from shellgate.rules.amend import prefix_rule_line  # deferred: with the ladder

        loop = asyncio.get_running_loop()
        rungs = await loop.run_in_executor(None, rungs_of)  # reads the histories: off the loop
        if len(rungs) <= 1:
            return Answer.of(choice)
        self.outfile.write("\n  Don't ask again for:\n")
        for i, rung in enumerate(rungs, 1):
            self.outfile.write(f"  {i}. {escape_one_line(describe(rung))}\n")
        while True:
            self.outfile.write(f"  Rule to write (1-{len(rungs)}, Enter = 1): ")
            self.outfile.flush()
            got = await self._read(fd, raw)
            key = "" if got is None else got.strip()
            if raw:
                self.outfile.write("\n")
            if key == "" or (key.isdigit() and 1 <= int(key) <= len(rungs)):
                rung = rungs[int(key) - 1 if key else 0]
                codex = rung.kind == "codex"  # Codex's own amendment, written as Codex writes it
                line = prefix_rule_line(rung.pattern) if codex else rung.line
                self.outfile.write(f"  -> {escape_one_line(line)}\n")  # Enter's choice too
                self.outfile.flush()
                if codex:
                    return Answer.of(choice)
                return Answer(choice.decision, choice.network_action, rung=rung)
            self.outfile.write("  Not one of the rules.\n")

    async def _read(self, fd: int, raw: bool) -> str | None:
        """Read without blocking the event loop (so a timeout can cancel the question)."""
        loop = asyncio.get_running_loop()
        while True:
            if raw and self._pending:
                got, self._pending = self._pending, b""
                if got.startswith(b"\x1b") and len(got) > 1:
                    continue  # an arrow or function key, not a lone Esc: ignore it
                return got[:1].decode(errors="replace")
            if not raw and b"\n" in self._pending:
                line, self._pending = self._pending.split(b"\n", 1)
                return line.decode(errors="replace")
            ready: asyncio.Future[None] = loop.create_future()
            try:
                loop.add_reader(fd, _wake, ready)
            except PermissionError:
                pass  # a regular file or /dev/null: epoll refuses it, and reading never blocks
            else:
                try:
                    await ready
                finally:
                    loop.remove_reader(fd)
            chunk = os.read(fd, 256)
            if not chunk:
                rest, self._pending = self._pending, b""
                return rest.decode(errors="replace") or None
            self._pending += chunk


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)
