"""The builtins' signatures, read from `rules-schema/builtins.json`, and argument binding.

Binding follows starlark-rust (what Codex uses), with its messages: extra positionals, unknown
names, missing parameters, then each parameter's type in declaration order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from shellgate.rules.values import starlark_repr, type_name

_PY_TYPES: dict[str, type] = {"str": str, "list": list, "bool": bool, "int": int}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str
    required: bool
    default: str | None
    doc: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BuiltinSpec:
    name: str
    doc: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


class BindError(Exception):
    """A call does not fit the signature. `param` names the argument at fault, if one is."""

    def __init__(self, message: str, param: str | None = None, code: str = "bad-argument"):
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code


def schema_text() -> str:
    return resources.files("shellgate").joinpath("schema/builtins.json").read_text("utf-8")


@cache
def builtin_specs() -> Mapping[str, BuiltinSpec]:
    raw = json.loads(schema_text())
    specs: dict[str, BuiltinSpec] = {}
    for b in raw["builtins"]:
        params = tuple(
            Param(
                p["name"],
                p["type"],
                bool(p["required"]),
                p.get("default"),
                p["doc"],
                tuple(p.get("enum", ())),
            )
            for p in b["parameters"]
        )
        specs[b["name"]] = BuiltinSpec(b["name"], b["doc"], params)
    return specs


_INFO: dict[str, tuple[tuple[str, ...], frozenset[str], dict[str, type]]] = {}


def _info(spec: BuiltinSpec) -> tuple[tuple[str, ...], frozenset[str], dict[str, type]]:
    info = _INFO.get(spec.name)
    if info is None:
        names = tuple(p.name for p in spec.params)
        info = (names, frozenset(names), {p.name: _PY_TYPES[p.type] for p in spec.params})
        _INFO[spec.name] = info
    return info


def bind(
    spec: BuiltinSpec, args: Sequence[object], kwargs: Mapping[str, object]
) -> dict[str, object]:
    """Parameter name -> value for the arguments given (absent optionals are left out)."""
    names, known, types = _info(spec)
    # The common call: keywords only, all known, of the right types, required ones present.
    if (
        not args
        and kwargs.keys() <= known
        and all(type(v) is types[k] for k, v in kwargs.items())
        and all(p.name in kwargs for p in spec.params if p.required)
    ):
        return dict(kwargs)
    if len(args) > len(names):
        raise BindError(
            f"Found {len(args) - len(names)} extra positional argument(s) for call to {spec.name}",
            code="extra-positional",
        )
    bound: dict[str, object] = dict(zip(names, args, strict=False)) if args else {}
    extra: list[str] = []
    for name, value in kwargs.items():
        if name not in known:
            extra.append(name)
        elif name in bound:
            raise BindError(
                f"Argument `{name}` occurs more than once",
                name,
                "duplicate-argument",
            )
        else:
            bound[name] = value
    if extra:
        listed = " ".join(f"`{n}`" for n in extra)
        raise BindError(
            f"Found {listed} extra named parameter(s) for call to {spec.name}",
            extra[0],
            "unknown-argument",
        )
    for p in spec.params:
        if p.required and p.name not in bound:
            raise BindError(
                f"Missing parameter `{p.name}` for call to `{spec.name}`", None, "missing-argument"
            )
    if all(type(v) is types[k] for k, v in bound.items()):
        return bound  # the common case, cheaply
    for p in spec.params:  # report the first wrong type in declaration order
        if p.name in bound:
            value = bound[p.name]
            want = types[p.name]
            if not isinstance(value, want) or (want is int and isinstance(value, bool)):
                raise BindError(
                    f"Type of parameter `{p.name}` doesn't match, expected `{p.type}`, actual "
                    f"`{type_name(value)} (repr: {starlark_repr(value)})`",
                    p.name,
                    "wrong-type",
                )
    return bound
