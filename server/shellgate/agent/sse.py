"""Server-sent events, read line by line from an httpx stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class SseEvent:
    event: str | None
    data: str


async def sse_events(response: httpx.Response) -> AsyncIterator[SseEvent]:
    event: str | None = None
    data: list[str] = []
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield SseEvent(event, "\n".join(data))
            event, data = None, []
        elif line.startswith(":"):
            continue  # a comment (keep-alive ping)
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line.startswith("event:"):
            event = line[6:].strip()
    if data:  # a last event without its blank line
        yield SseEvent(event, "\n".join(data))
