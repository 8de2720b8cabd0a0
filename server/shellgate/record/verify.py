"""Reading the local record (`chain`) back: every line, and the check of its hash chain that
`shellgate log verify` runs: the first entry that breaks it, named by file and line."""

from __future__ import annotations

import json
import os

from shellgate.record.chain import GENESIS, NAME, digest, files, read_head, state_dir
from shellgate.records import TYPE_CHECKING, Record

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


class Line(Record):
    path: str
    number: int  # 1-based, in its file
    seq: int | None
    entry: dict[str, Any] | None  # None: not a well-formed entry
    raw: str


def lines(folder: str | None = None) -> Iterator[Line]:
    """Every line of the log, oldest first, parsed where it parses."""
    folder = state_dir() if folder is None else folder
    for path in files(folder):
        with open(path, "rb") as fh:
            for number, raw in enumerate(fh, 1):
                text = raw.decode("utf-8", "surrogateescape").rstrip("\n")
                try:
                    data = json.loads(text)
                    yield Line(path, number, int(data["seq"]), data, text)
                except (ValueError, KeyError, TypeError):
                    yield Line(path, number, None, None, text)


class Break(Record):
    path: str
    number: int
    seq: int | None
    what: str

    def __str__(self) -> str:
        at = f"entry {self.seq}" if self.seq is not None else "a line"
        return f"{self.path}:{self.number}: {at}: {self.what}"


class Verdict(Record):
    whole: int  # entries checked and found whole
    first_seq: int | None  # where the kept chain starts (older files rotated away)
    last_seq: int | None
    broken: Break | None


def verify(folder: str | None = None) -> Verdict:
    """Checks every line's hash, its link to the one before and the seq numbers, then the
    head: the first break found, else None."""
    folder = state_dir() if folder is None else folder
    prev: str | None = None
    last_seq: int | None = None
    first: int | None = None
    whole = 0
    for line in lines(folder):
        data = line.entry
        if data is None or not isinstance(data.get("entry"), dict):
            return Verdict(whole, first, last_seq, Break(line.path, line.number, None,
                           "not a whole entry (torn by a crash, or edited)"))  # fmt: skip
        seq = int(data["seq"])
        if digest(seq, str(data.get("prev")), data["entry"]) != data.get("hash"):
            return Verdict(whole, first, last_seq, Break(line.path, line.number, seq,
                           "edited: its hash does not match its content"))  # fmt: skip
        if prev is not None and data.get("prev") != prev:
            what = (f"the entry before it is missing or out of order (its link names another "
                    f"entry than {last_seq})")  # fmt: skip
            if last_seq is not None and seq != last_seq + 1:
                what = f"entries between {last_seq} and {seq} were removed or reordered"
            return Verdict(whole, first, last_seq, Break(line.path, line.number, seq, what))
        if last_seq is not None and seq != last_seq + 1:
            return Verdict(whole, first, last_seq, Break(line.path, line.number, seq,
                           f"numbered {seq} after {last_seq}"))  # fmt: skip
        if first is None:
            first = seq
            if seq == 1 and data.get("prev") != GENESIS:
                return Verdict(whole, first, last_seq, Break(line.path, line.number, seq,
                               "the first entry does not start the chain"))  # fmt: skip
        prev, last_seq, whole = str(data["hash"]), seq, whole + 1
    head = read_head(folder)
    if head is not None and (last_seq is None or head[0] > last_seq):
        path = os.path.join(folder, f"{NAME}.jsonl")
        return Verdict(whole, first, last_seq, Break(path, 0, head[0], (
            f"entries after {last_seq or 0} up to {head[0]} were removed from the end "
            "(decisions.head names the last one written)")))  # fmt: skip
    if head is not None and head[0] == last_seq and head[1] != prev:
        path = os.path.join(folder, f"{NAME}.jsonl")
        return Verdict(whole, first, last_seq, Break(path, 0, last_seq,
                       "the last entry is not the one written (decisions.head differs)"))
    return Verdict(whole, first, last_seq, None)
