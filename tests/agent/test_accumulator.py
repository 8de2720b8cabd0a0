"""The tool-call accumulator on the streaming shapes real servers send, quirks included."""

from __future__ import annotations

from shellgate.agent.accumulator import ToolCallAccumulator


def _names_args(deltas: list[dict]) -> list[tuple[str, str, str]]:
    acc = ToolCallAccumulator()
    for d in deltas:
        acc.feed(d)
    return [(c.call_id, c.name, c.arguments) for c in acc.calls("gen")]


def test_standard_split_arguments() -> None:
    calls = _names_args([
        {"index": 0, "id": "a", "function": {"name": "sh", "arguments": "{\"c"}},
        {"index": 0, "function": {"arguments": "\": 1}"}},
        {"index": 1, "id": "b", "function": {"name": "sh", "arguments": "{}"}},
    ])
    assert calls == [("a", "sh", "{\"c\": 1}"), ("b", "sh", "{}")]


def test_every_call_at_index_zero_is_not_merged() -> None:
    # Ollama #15457: the openai SDK's helper merges these into id "ab", args "{..}{..}".
    calls = _names_args([
        {"index": 0, "id": "a", "function": {"name": "sh", "arguments": "{\"command\": \"ls a\"}"}},
        {"index": 0, "id": "b", "function": {"name": "sh", "arguments": "{\"command\": \"ls b\"}"}},
    ])
    assert calls == [("a", "sh", "{\"command\": \"ls a\"}"), ("b", "sh", "{\"command\": \"ls b\"}")]


def test_missing_index() -> None:
    # Ollama #7881: no index at all; the SDK's helper crashes on it.
    calls = _names_args([
        {"id": "a", "function": {"name": "sh", "arguments": "{\"command\": \"ls a\"}"}},
        {"id": "b", "function": {"name": "sh", "arguments": "{\"command\": \"ls b\"}"}},
    ])
    assert [c[2] for c in calls] == ["{\"command\": \"ls a\"}", "{\"command\": \"ls b\"}"]


def test_missing_index_continuation_and_missing_ids() -> None:
    calls = _names_args([
        {"function": {"name": "sh", "arguments": "{\"x\""}},
        {"function": {"arguments": ": 2}"}},
    ])
    assert calls == [("gen_0", "sh", "{\"x\": 2}")]


def test_id_repeated_on_every_chunk_is_one_call() -> None:
    calls = _names_args([
        {"index": 0, "id": "a", "function": {"name": "sh", "arguments": "{\"x\""}},
        {"index": 0, "id": "a", "function": {"arguments": ": 3}"}},
    ])
    assert calls == [("a", "sh", "{\"x\": 3}")]
