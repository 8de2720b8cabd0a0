"""The OpenAI wire protocols: Chat Completions and Responses, JSON or SSE."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from shellgate.agent.standin.script import Step, arguments, uid

if TYPE_CHECKING:
    from shellgate.agent.standin import Handler


def side(body: dict[str, Any]) -> Step | None:
    return None  # every request of an OpenAI client is a turn of its main loop


def error(status: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "standin_error"}}


def chat(h: Handler, body: dict[str, Any], step: Step) -> None:
    calls: list[dict[str, Any]] = [{"id": tc.get("id") or uid("call_"), "type": "function",
              "function": {"name": tc["name"], "arguments": arguments(tc)}}
             for tc in step.get("tool_calls", [])]
    finish = "tool_calls" if calls else "stop"
    base = {"id": uid("chatcmpl-"), "created": int(time.time()),
            "model": body.get("model", "stand-in"), "system_fingerprint": "standin"}
    if not body.get("stream"):
        msg: dict[str, Any] = {"role": "assistant", "content": step.get("text"),
                               "refusal": None}
        if calls:
            msg["tool_calls"] = calls
        h.send_json(200, {**base, "object": "chat.completion", "choices": [
            {"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
        return
    chunk = {**base, "object": "chat.completion.chunk"}

    def delta(d: dict[str, Any], finish_reason: str | None = None) -> None:
        h.sse({**chunk, "choices": [{"index": 0, "delta": d,
                                         "finish_reason": finish_reason}]})

    h.sse_start()
    delta({"role": "assistant", "content": ""})
    if step.get("stall_ms"):
        h.stall(step)
    text = step.get("text") or ""
    for j in range(0, len(text), 8):
        delta({"content": text[j:j + 8]})
    quirk = step.get("quirk")
    for k, call in enumerate(calls):
        args = call["function"]["arguments"]
        whole = quirk is not None  # the buggy servers send whole arguments at once
        half = len(args) // 2
        first: dict[str, Any] = {
            "index": 0 if quirk == "index0" else k, "id": call["id"], "type": "function",
            "function": {"name": call["function"]["name"],
                         "arguments": args if whole else args[:half]}}
        if quirk == "no_index":
            del first["index"]
        delta({"tool_calls": [first]})
        if not whole:
            delta({"tool_calls": [{"index": k, "function": {"arguments": args[half:]}}]})
    if step.get("cut"):
        return  # connection closes with no finish_reason and no [DONE]
    delta({}, finish)
    h.wfile.write(b"data: [DONE]\n\n")
    h.wfile.flush()



def responses(h: Handler, body: dict[str, Any], step: Step) -> None:
    items: list[dict[str, Any]] = []
    if step.get("text") is not None:
        items.append({"type": "message", "id": uid("msg_"), "role": "assistant",
                      "status": "completed", "content": [
                          {"type": "output_text", "text": step["text"], "annotations": []}]})
    for tc in step.get("tool_calls", []):
        item = {"type": "function_call", "id": uid("fc_"),
                "call_id": tc.get("id") or uid("call_"), "name": tc["name"],
                "arguments": arguments(tc), "status": "completed"}
        if tc.get("namespace"):
            item["namespace"] = tc["namespace"]
        items.append(item)
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    resp = {"id": uid("resp_"), "object": "response", "created_at": int(time.time()),
            "status": "completed", "model": body.get("model", "stand-in"), "output": items,
            "usage": usage, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    if not body.get("stream"):
        h.send_json(200, resp)
        return
    seq = iter(range(1_000_000))

    def event(kind: str, **fields: Any) -> None:
        h.sse({"type": kind, "sequence_number": next(seq), **fields}, kind)

    h.sse_start()
    event("response.created", response={**resp, "status": "in_progress", "output": []})
    if step.get("stall_ms"):
        h.stall(step)
    for i, item in enumerate(items):
        if item["type"] == "message":
            event("response.output_item.added", output_index=i,
                  item={**item, "status": "in_progress", "content": []})
            part = {"type": "output_text", "text": "", "annotations": []}
            event("response.content_part.added", item_id=item["id"], output_index=i,
                  content_index=0, part=part)
            text = item["content"][0]["text"]
            for j in range(0, len(text), 8):
                event("response.output_text.delta", item_id=item["id"], output_index=i,
                      content_index=0, delta=text[j:j + 8], logprobs=[])
            event("response.output_text.done", item_id=item["id"], output_index=i,
                  content_index=0, text=text, logprobs=[])
            event("response.content_part.done", item_id=item["id"], output_index=i,
                  content_index=0, part=item["content"][0])
        else:
            event("response.output_item.added", output_index=i,
                  item={**item, "status": "in_progress", "arguments": ""})
            args = item["arguments"]
            for j in range(0, len(args), 16):
                event("response.function_call_arguments.delta", item_id=item["id"],
                      output_index=i, delta=args[j:j + 16])
            event("response.function_call_arguments.done", item_id=item["id"],
                  output_index=i, arguments=args, name=item["name"])
        event("response.output_item.done", output_index=i, item=item)
    if step.get("cut"):
        return
    event("response.completed", response=resp)
