"""Whatever the text, loading gives rules or a RulesError with a position: never another
exception. Snippets mix Starlark, Python-only syntax (which our own parser reads but Starlark
rejects), and broken text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.rules.loader import parse_text

SNIPPETS = [
    'prefix_rule(pattern=["a"])',
    'prefix_rule(pattern=[["a", "b"], "c"], decision="prompt", match=["a c"])',
    "prefix_rule(**{'pattern': ['k']})",
    "f = lambda x: [y for y in x if y]",
    "def g(*a, **k):\n    return [i for i in range(3)]",
    "g(1, *[2], **{})",
    "class C: pass",
    "with x as y: pass",
    "import os",
    "x := 1",
    "@dec\ndef h(): pass",
    "try:\n    pass\nexcept E:\n    pass",
    "async def a(): pass",
    "for i in range(3):\n    for j in (range(2)):\n        prefix_rule(pattern=[str(i)])",
    'x = f"{1 + 2!r:>3}"',
    'x = f"""multi\n{1}"""',
    "x = {k: v for k, v in {1: 2}.items()}",
    "x = (yield)",
    "print(1)",
    "x = [" * 3,
    ")]}",
    "'unterminated",
    "\ttabbed = 1",
    "x = 1 // 0",
    "é = 1",
    'prefix_rule(pattern=["\\x00"], justification="\\0")',
    "host_executable(name='git', paths=['/usr/bin/git', 3])",
    "network_rule('h', 'https', 'deny', justification=' ')",
    "fail('boom')",
    "load('x', 'y')",
    "x = 1 if True else 2",
    "# comment only",
    "",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), max_size=5), st.text(max_size=20))
def test_parse_text_never_raises(parts: list[str], noise: str) -> None:
    for text in ("\n".join(parts) + "\n", "\n".join(parts) + noise):
        parsed = parse_text(text, "p.rules")
        if parsed.error is not None:
            assert parsed.error.path == "p.rules"
            assert parsed.error.message
