"""Reading a TOML document as Codex's serde does, for requirements.toml: its error messages
(`invalid type: …, expected …`, the key path without indexes) and where each fault is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shellgate.codexconfig.tomlpos import Path as KeyPath
from shellgate.codexconfig.tomlpos import Position, locate, positions
from shellgate.rules.errors import RulesError


class RequirementsError(RulesError):
    """requirements.toml is not what Codex accepts: Codex does not start, and neither does
    any ShellGate entry point (a hook blocks with this message)."""


class Reader:
    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.found = positions(text)

    def at(self, keys: KeyPath) -> Position:
        return locate(self.found, keys)

    def fail(self, message: str, keys: KeyPath, *, code: str) -> RequirementsError:
        line, column = self.at(keys)
        return RequirementsError(message, path=self.path, line=line, column=column, code=code)

    def type_error(self, message: str, keys: KeyPath) -> RequirementsError:
        """serde's error, as Codex prints it: the key path without array indexes."""
        dotted = ".".join(k for k in keys if isinstance(k, str))
        return self.fail(
            f"failed to parse requirements layer {self.path}: {message}\nin `{dotted}`", keys,
            code="requirements-type",
        )  # fmt: skip

    def rules_error(self, message: str, keys: KeyPath) -> RequirementsError:
        return self.fail(
            f"invalid rules in requirements (set by {self.path}): {message}", keys,
            code="requirements-rules",
        )  # fmt: skip


def unexpected(value: object) -> str:
    """serde's `Unexpected` for a TOML value."""
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return "string " + debug(value)
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, dict):
        return "map"
    return "string " + debug(str(value))  # dates: toml-rs hands them over as strings


def debug(text: str) -> str:
    """Rust's `{:?}` of a str (the common escapes)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    out = out.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return f'"{out}"'


def invalid(value: object, expected: str) -> str:
    return f"invalid type: {unexpected(value)}, expected {expected}"


def string(r: Reader, value: object, keys: KeyPath, hooks: bool = False) -> str:
    if not isinstance(value, str):
        raise r.type_error(invalid(value, "a string"), keys[:1] if hooks else keys)
    return value


def strings(r: Reader, value: object, keys: KeyPath) -> list[str]:
    if not isinstance(value, list):
        raise r.type_error(invalid(value, "a sequence"), keys)
    return [string(r, v, (*keys, i)) for i, v in enumerate(value)]


def variants(r: Reader, value: object, keys: KeyPath, allowed: Sequence[str]) -> list[str]:
    out: list[str] = []
    for i, item in enumerate(strings(r, value, keys)):
        if item not in allowed:
            choices = ", ".join(f"`{a}`" for a in allowed)
            raise r.type_error(f"unknown variant `{item}`, expected one of {choices}", (*keys, i))
        out.append(item)
    return out


def as_table(r: Reader, value: object, keys: KeyPath, struct: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise r.type_error(invalid(value, f"struct {struct}"), keys)
    return value
