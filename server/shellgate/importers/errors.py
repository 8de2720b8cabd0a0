"""Bad input to an import: which file, where, and what is wrong with it."""

from __future__ import annotations

from shellgate.rules.errors import RulesError


class ImportInputError(RulesError):
    """A settings or policy file that cannot be imported. Nothing is written when one is
    raised. `str()` is `path:line:column: message` (0 when there is no position)."""

    def __init__(self, message: str, *, path: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message, path=path, line=line, column=column, code="import-input")

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.message, self.path, self.line, self.column))


def _rebuild(message: str, path: str, line: int, column: int) -> ImportInputError:
    return ImportInputError(message, path=path, line=line, column=column)
