"""`shellgate.records.Record` behaves as the `typing.NamedTuple` it stands for, and the hook's
path never imports `typing`."""

from __future__ import annotations

import subprocess
import sys
from typing import NamedTuple

import pytest

from shellgate.broker.protocol import AgentAnswer, AgentRequest
from shellgate.records import Record


class Typed(NamedTuple):
    a: str
    b: int = 2

    @property
    def twice(self) -> int:
        return self.b * 2


class Ours(Record):
    a: str
    b: int = 2

    @property
    def twice(self) -> int:
        return self.b * 2


@pytest.mark.parametrize("cls", [Typed, Ours])
def test_fields_defaults_methods_and_immutability(cls: type[Typed]) -> None:
    x = cls("x")
    assert (x, x.b, x.twice, x._fields, x._asdict()) == (("x", 2), 2, 4, ("a", "b"),
                                                         {"a": "x", "b": 2})  # fmt: skip
    assert x._replace(b=5) == cls("x", 5) and cls(a="y", b=1) == ("y", 1)
    assert repr(x) == f"{cls.__name__}(a='x', b=2)"
    with pytest.raises(AttributeError):
        x.a = "z"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        x.c = 1  # type: ignore[attr-defined]  # __slots__: no instance dict
    with pytest.raises(TypeError):
        cls()  # type: ignore[call-arg]


def test_broker_records() -> None:
    req = AgentRequest("codex", None, "/w", "ls")
    # no approval policy: Codex's config files decide
    assert req.argv == ("bash", "-lc", "ls") and req.approval_policy is None
    assert isinstance(req, tuple) and AgentAnswer("accept").approved


def test_a_remembered_hook_decision_never_imports_typing(tmp_path: object) -> None:
    code = (
        "import sys, shellgate.cli.hook, shellgate.hooks.claude_code, shellgate.hooks.gemini, "
        "shellgate.hooks.codex, shellgate.hooks.memo, shellgate.broker.client; "
        "print('typing' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                         check=True, cwd=str(tmp_path))  # fmt: skip
    assert out.stdout.strip() == "False", out.stderr
