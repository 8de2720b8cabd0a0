"""The one exception family for bad rules input: where it is and what Codex says about it."""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal["read", "parse"]


class RulesError(Exception):
    """A rules file could not be read or evaluated.

    `message` holds Codex's words; `kind` says which first line Codex prints
    (`failed to read policy at` or `failed to parse policy at`). Positions are 1-based,
    columns in characters; 0 means "no position" (e.g. an unreadable file).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str,
        line: int = 0,
        column: int = 0,
        end_line: int | None = None,
        end_column: int | None = None,
        code: str = "parse-error",
        kind: ErrorKind = "parse",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.end_line = line if end_line is None else end_line
        self.end_column = column if end_column is None else end_column
        self.code = code
        self.kind: ErrorKind = kind

    def __str__(self) -> str:
        if not self.line:  # the whole file (unreadable, a folder): no place in it to name
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}:{self.column}: {self.message}"

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only constructor: pickle needs help (errors travel through caches).
        return (_rebuild, (self.message, self.__dict__.copy()))


def _rebuild(message: str, state: dict[str, object]) -> RulesError:
    err = RulesError.__new__(RulesError)
    Exception.__init__(err, message)
    err.__dict__.update(state)
    return err
