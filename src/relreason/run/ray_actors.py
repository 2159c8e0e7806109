"""The Ray actors of a Ray sweep (``sweep_ray``): one ``ServerState`` per API server set (the
rate limit and circuit breaker its cells share over every worker), seen by a worker through
``SharedProxy`` (the ``run.shared.SharedServer`` interface); and the ``Hub`` that collects the
workers' progress for the driver. Plain classes: ``sweep_ray`` makes them actors."""

from __future__ import annotations

import time
from typing import Any


class RemoteLimits:
    """Rate limits kept by a ``ServerState`` actor (the ``SharedLimits`` interface)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self, requests: int, tokens: int) -> None:
        """Wait for the actor's limits."""
        await self.actor.acquire.remote(requests, tokens)

    async def add_tokens(self, tokens: int) -> None:
        """Charge the actor's token limit."""
        await self.actor.add_tokens.remote(tokens)


class SharedProxy:
    """A worker's view of one server's shared state (the ``SharedServer`` interface)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.limits = RemoteLimits(actor)

    async def tripped(self) -> str | None:
        """The breaker's message, if some worker tripped it."""
        message: str | None = await self.actor.tripped.remote()
        return message

    async def failed(self) -> int:
        """Count a failure to connect; the consecutive failures over every worker."""
        count: int = await self.actor.failed.remote()
        return count

    def succeeded(self) -> None:
        """Reset the consecutive failures (not waited for)."""
        self.actor.succeeded.remote()

    def trip(self, message: str) -> None:
        """Stop every worker's runs on this server."""
        self.actor.trip.remote(message)


class ServerState:
    """One server set's rate limit and circuit breaker (a Ray actor, async)."""

    def __init__(self, rpm: float | None, tpm: float | None, max_wait: float) -> None:
        self.settings = (rpm, tpm, max_wait)
        self.limits: Any = None
        self.failures = 0
        self.message: str | None = None
        self.granted: list[float] = []

    def _limits(self) -> Any:
        from relreason.run.limits import RateLimits

        if self.limits is None:  # made inside the actor's event loop
            self.limits = RateLimits(*self.settings)
        return self.limits

    async def acquire(self, requests: int, tokens: int) -> None:
        """Wait until the requests and tokens fit."""
        await self._limits().acquire(requests, tokens)
        self.granted.extend([time.monotonic()] * requests)

    async def grants(self) -> list[float]:
        """When each request was let through (this actor's clock)."""
        return list(self.granted)

    async def add_tokens(self, tokens: int) -> None:
        """Charge more tokens."""
        await self._limits().add_tokens(tokens)

    async def tripped(self) -> str | None:
        """The breaker's message, or None."""
        return self.message

    async def failed(self) -> int:
        """One more consecutive failure to connect."""
        self.failures += 1
        return self.failures

    async def succeeded(self) -> None:
        """A call got through."""
        self.failures = 0

    async def trip(self, message: str) -> None:
        """Trip the breaker for every worker."""
        self.message = self.message or message


class Hub:
    """Collects the workers' progress messages and the attempts of each cell (a Ray actor)."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.attempts = 0

    def push(self, message: Any) -> None:
        """Keep one message."""
        self.messages.append(message)

    def drain(self) -> list[Any]:
        """Return and forget the messages so far."""
        messages, self.messages = self.messages, []
        return messages

    def next_attempt(self) -> int:
        """A number for a task attempt (counts every start, retries included)."""
        self.attempts += 1
        return self.attempts
