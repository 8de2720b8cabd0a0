"""The explanation as Markdown (hovers, the editor's Explain view): outcome first, one table of
commands with the deciding rule as a link to its line, the text trace folded below."""

from __future__ import annotations

from pathlib import Path

from shellgate.codexconfig.layers import discover_layers, load_layers
from shellgate.explain import explain, render_text
from shellgate.explain.markdown import render_markdown

RULES = """\
prefix_rule(pattern=["git", "push"], decision="prompt", justification="pushes need *a* human")
prefix_rule(pattern=["rm"], decision="forbidden", justification="use `trash`")
"""


def _policy(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "home").mkdir()
    rules = tmp_path / "team.rules"
    rules.write_text(RULES, encoding="utf-8")
    layers = discover_layers(codex_home=tmp_path / "home", extra_rules=[str(rules)])
    return load_layers(layers), rules


def test_outcome_first_then_a_table_with_links_then_the_trace_folded(tmp_path: Path) -> None:
    policy, rules = _policy(tmp_path)
    ex = explain("git push origin && rm -rf build", policy=policy)
    md = render_markdown(ex)
    first, table, *rest = md.split("\n\n")
    assert first.startswith("**Refused**: ")
    head = ["| # | command | decision | decided by |", "|---|---|---|---|"]
    assert table.splitlines()[:2] == head
    uri = rules.as_uri()
    assert table.splitlines()[2] == (
        f"| 1 | `git push origin` | prompt | [team.rules:1]({uri}#L1) [cli] `git push` prompt: "
        "pushes need \\*a\\* human |"
    )
    assert table.splitlines()[3] == (
        f"| 2 | `rm -rf build` | forbidden | [team.rules:2]({uri}#L2) [cli] `rm` forbidden: "
        "use \\`trash\\` |"
    )
    folded = "\n\n".join(rest)
    assert folded.startswith("<details><summary>Full trace</summary>")
    assert render_text(ex).rstrip("\n") in folded  # nothing of the text trace is lost


def test_a_model_s_words_stay_text(tmp_path: Path) -> None:
    policy, _ = _policy(tmp_path)
    ex = explain(["echo", "a|b ``` [x](command:evil) <img>"], policy=policy)
    md = render_markdown(ex, trace=False)
    row = md.split("\n\n")[1].splitlines()[2]
    # in a code span longer than any backtick run inside: literal, never a link or a tag
    assert row.startswith("| 1 | ````echo 'a\\|b ``` [x](command:evil) <img>'```` | allow |")
