"""`Record`: `typing.NamedTuple` for the type checker, built from `collections.namedtuple` at run
time, so that the hook's path never imports `typing` (a few ms of every hook's start-up).

    class Answer(Record):
        answer: str
        message: str | None = None

Fields are the class's annotations in order, defaults their values; methods and properties are
kept. Annotations are never evaluated (the modules use `from __future__ import annotations`).
"""

from __future__ import annotations

import collections

__all__ = ["TYPE_CHECKING", "Record"]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing; mypy knows the name

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:

    class _RecordMeta(type):
        def __new__(mcs, name, bases, namespace):
            if not bases:  # Record itself
                return super().__new__(mcs, name, bases, namespace)
            fields = list(namespace.get("__annotations__", {}))
            defaults = [namespace[f] for f in fields if f in namespace]
            base = collections.namedtuple(name, fields, defaults=defaults,
                                          module=namespace.get("__module__"))  # fmt: skip
            body = {k: v for k, v in namespace.items() if k not in fields}
            body["__slots__"] = ()
            return type(name, (base,), body)

    class Record(metaclass=_RecordMeta):
        """The base of records (see the module's docstring)."""
