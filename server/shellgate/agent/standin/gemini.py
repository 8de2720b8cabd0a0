"""The Gemini API (Gemini CLI): `:generateContent` (JSON) and `:streamGenerateContent` (SSE, the
whole answer in one event, as the CLI reads it)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from shellgate.agent.standin.script import Step

if TYPE_CHECKING:
    from shellgate.agent.standin import Handler


def side(body: dict[str, Any]) -> Step | None:
    # The CLI's helpers (model router, next-speaker check) ask for JSON: a value filling their
    # schema, taking no step of the script.
    gen = body.get("generationConfig") or {}
    schema = gen.get("responseJsonSchema") or gen.get("responseSchema")
    if schema or gen.get("responseMimeType") == "application/json":
        return {"text": json.dumps(_fill(schema or {}))}
    return None


def error(status: int, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message}}


def reply(h: Handler, body: dict[str, Any], step: Step) -> None:
    parts: list[dict[str, Any]] = []
    if step.get("text") is not None or not step.get("tool_calls"):
        parts.append({"text": step.get("text") or ""})
    for tc in step.get("tool_calls", []):
        parts.append({"functionCall": {"name": tc["name"], "args": tc.get("arguments", {})}})
    model = h.path.split("?")[0].rsplit("/", 1)[-1].split(":")[0]
    answer = {"candidates": [{"content": {"role": "model", "parts": parts},
                              "finishReason": "STOP", "index": 0}],
              "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                "totalTokenCount": 15},
              "modelVersion": model}  # fmt: skip
    if ":streamGenerateContent" not in h.path:
        h.send_json(200, answer)
        return
    h.sse_start()
    h.wfile.write(f"data: {json.dumps(answer)}\r\n\r\n".encode())
    h.wfile.flush()


def _fill(schema: dict[str, Any]) -> Any:
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {k: _fill(v) for k, v in (schema.get("properties") or {}).items()}
    return {"array": [], "integer": 1, "number": 1, "boolean": False}.get(kind, "stand-in")
