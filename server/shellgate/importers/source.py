"""Reading a source file: size limit, UTF-8, and positions (1-based line and column)."""

from __future__ import annotations

from pathlib import Path

from shellgate.importers.errors import ImportInputError

# Settings and policy files are a few kilobytes; a bigger one is a mistake or an attack.
MAX_SOURCE_BYTES = 4 * 1024 * 1024


def read_source(path: Path) -> str:
    """The file's text; ImportInputError for a missing, huge or non-UTF-8 file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise ImportInputError(f"cannot read the file: {exc.strerror}", path=str(path)) from None
    if len(data) > MAX_SOURCE_BYTES:
        raise ImportInputError(
            f"the file is larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB; "
            "no settings file is that big",
            path=str(path),
            line=1,
            column=1,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[start : exc.start].decode("utf-8", "replace")) + 1
        raise ImportInputError(
            f"not UTF-8: byte 0x{data[exc.start]:02x} cannot start a character",
            path=str(path),
            line=line,
            column=column,
        ) from None
    return text.removeprefix("\ufeff")


def position(text: str, offset: int) -> tuple[int, int]:
    """(line, column) of a character offset, both 1-based."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
