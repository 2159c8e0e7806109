"""Request and token rate limits for the runner, on ``aiolimiter`` leaky buckets.

Each bucket holds one second's worth of budget (``rate / 60``, at least one request or the
largest single amount), so a limit of 600 requests/min lets 10 through at once and then 10 a
second, rather than a whole minute's burst. A token amount larger than the bucket is taken in
bucket-sized pieces, so large prompts are throttled accurately too.
"""

from __future__ import annotations

import math

from aiolimiter import AsyncLimiter

from relreason.errors import UsageError


def _bucket(per_minute: float, what: str) -> AsyncLimiter:
    if not per_minute > 0 or math.isinf(per_minute):
        raise UsageError(f"{what} per minute must be a positive number, got {per_minute}")
    capacity = max(1.0, per_minute / 60)
    return AsyncLimiter(max_rate=capacity, time_period=capacity * 60 / per_minute)


class RateLimits:
    """Requests-per-minute and tokens-per-minute limits (either may be None: unlimited).

    Must be created inside the running event loop. Raises ``UsageError`` for a limit <= 0.
    One charge never takes more than ``max_wait`` seconds of token budget.
    """

    def __init__(
        self,
        requests_per_minute: float | None,
        tokens_per_minute: float | None,
        max_wait: float,
    ) -> None:
        self._requests = (
            None if requests_per_minute is None else _bucket(requests_per_minute, "requests")
        )
        self._tokens = None if tokens_per_minute is None else _bucket(tokens_per_minute, "tokens")
        # the most tokens one charge may take: ``max_wait`` seconds of budget
        self._per_minute = (tokens_per_minute or 0.0) * min(max_wait, 60.0) / 60

    async def acquire(self, requests: int, tokens: int) -> None:
        """Wait until ``requests`` requests and ``tokens`` tokens fit in the limits (a request
        larger than ``max_wait`` seconds of token budget is charged that much)."""
        if self._requests is not None:
            await _take(self._requests, requests)
        if self._tokens is not None:
            await _take(self._tokens, min(tokens, self._per_minute))

    async def add_tokens(self, tokens: int) -> None:
        """Charge ``tokens`` more (actual usage above the estimate); waits if over the limit.

        At most ``max_wait`` seconds' budget (and never over a minute's) is charged, so
        absurd usage a server reports cannot stall the run."""
        if self._tokens is not None and tokens > 0:
            await _take(self._tokens, min(tokens, self._per_minute))


async def _take(bucket: AsyncLimiter, amount: float) -> None:
    capacity = bucket.max_rate
    pieces, rest = divmod(amount, capacity)
    for _ in range(int(pieces)):
        await bucket.acquire(capacity)
    if rest > 0:
        await bucket.acquire(rest)
