"""The whole decision chain for one command, for people (text) and programs (JSON).

`explain(argv_or_script, policy=..., context=..., cwd=...) -> Explanation`,
`render_text(explanation) -> str`, `to_json(explanation) -> dict`.
"""

from shellgate.explain.build import explain
from shellgate.explain.model import Explanation
from shellgate.explain.render import render_text
from shellgate.explain.tojson import to_json

__all__ = ["Explanation", "explain", "render_text", "to_json"]
