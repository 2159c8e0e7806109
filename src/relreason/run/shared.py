"""What the runs of a sweep spread over several processes share per API server: one rate limit
and one circuit breaker (``sweep_ray`` keeps them in a Ray actor). A run given no
``SharedServer`` keeps its own, as a local run does."""

from __future__ import annotations

from typing import Protocol


class SharedLimits(Protocol):
    """The interface of :class:`relreason.run.limits.RateLimits` a call path uses."""

    async def acquire(self, requests: int, tokens: int) -> None:
        """Wait until ``requests`` requests and ``tokens`` tokens fit in the limits."""

    async def add_tokens(self, tokens: int) -> None:
        """Charge ``tokens`` more (actual usage above the estimate)."""


class SharedServer(Protocol):
    """One server's rate limit and circuit breaker, shared by every run that calls it."""

    @property
    def limits(self) -> SharedLimits:
        """The shared rate limits."""

    async def tripped(self) -> str | None:
        """The message of the breaker when some run tripped it, else None."""

    async def failed(self) -> int:
        """Count one failure to connect; return the consecutive failures over all runs."""

    def succeeded(self) -> None:
        """A call got through: the consecutive failures start again from zero."""

    def trip(self, message: str) -> None:
        """Stop every run on this server with ``message``."""
