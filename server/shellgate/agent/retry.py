"""Retries around one model call: 429 and 5xx with backoff (honouring Retry-After), a stream
cut short once. Anything else fails at once with its actionable message."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from shellgate.agent.model import ModelError, ModelTurn, StreamCut

BASE_DELAY_S = 0.5
MAX_DELAY_S = 30.0


def backoff_delay(attempt: int, retry_after: float | None, rng: random.Random) -> float:
    """Seconds before retry `attempt` (1-based): the server's Retry-After when it gave one."""
    if retry_after is not None:
        return min(retry_after, MAX_DELAY_S * 4)
    base: float = min(MAX_DELAY_S, BASE_DELAY_S * 2.0 ** (attempt - 1))
    return base * (0.8 + 0.4 * rng.random())  # jitter so that clients do not retry in step


async def with_retries(call: Callable[[], Awaitable[ModelTurn]], *, max_retries: int,
                       on_retry: Callable[[int, float, ModelError], None],
                       rng: random.Random | None = None) -> ModelTurn:
    rng = rng or random.Random()
    attempt = 0
    cut_retried = False
    while True:
        try:
            return await call()
        except StreamCut as exc:
            if cut_retried:
                raise
            cut_retried = True
            on_retry(1, 0.0, exc)
        except ModelError as exc:
            attempt += 1
            if not exc.retryable or attempt > max_retries:
                raise
            delay = backoff_delay(attempt, exc.retry_after, rng)
            on_retry(attempt, delay, exc)
            await asyncio.sleep(delay)
