"""Starlark (starlark-rust) names and reprs of the Python values starlark-go hands builtins."""

from __future__ import annotations

import json


def type_name(value: object) -> str:
    if value is None:
        return "NoneType"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, list):
        return "list"
    if isinstance(value, tuple):
        return "tuple"
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, (set, frozenset)):
        return "set"
    return "function" if callable(value) else type(value).__name__


def starlark_repr(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(starlark_repr(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(starlark_repr(v) for v in value)
        return "(" + inner + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        items = (f"{starlark_repr(k)}: {starlark_repr(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return repr(value)
