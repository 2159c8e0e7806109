"""The Ray actors of a Ray sweep (``sweep_ray``): one ``ServerState`` per API server set (the
rate limit and circuit breaker its cells share over every worker), seen by a worker through
``SharedProxy`` (the ``run.shared.SharedServer`` interface); and the ``Hub`` that collects the
workers' progress and each running cell's records for the driver. Plain classes: ``sweep_ray``
makes them actors."""

from __future__ import annotations

import time
from typing import Any

from relreason.records import RECORDS


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
    """Collects the workers' progress messages, the attempts of each cell, and each cell's
    records as its workers answer them (a Ray actor).

    A worker sends the cell's manifest and its whole records file when it starts (``folder``)
    and each record's line as it is written (``lines``); the driver takes them twice a second
    (``take``) into the cell's run folder, so a stop of the driver keeps what was answered. An
    attempt that begins again after its worker died starts from the files as the dead one left
    them (``begin``), so nothing it answered is asked again.
    """

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.attempts = 0
        self.files: dict[int, dict[str, bytes]] = {}
        self.lines: dict[int, list[bytes]] = {}
        self.current: dict[int, int] = {}
        self.fresh: dict[int, tuple[dict[str, bytes], list[bytes]]] = {}

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

    def begin(self, index: int, files: dict[str, bytes]) -> tuple[int, dict[str, bytes]]:
        """A worker starts cell ``index``: its attempt number and the cell's files (``files``,
        what the driver sent, the first time; as the last attempt left them after)."""
        attempt = self.next_attempt()
        self.current[index] = attempt
        if index not in self.files:
            self.files[index], self.lines[index] = dict(files), []
        kept = dict(self.files[index])
        if self.lines[index]:
            kept[RECORDS] = kept.get(RECORDS, b"") + b"".join(self.lines[index])
        return attempt, kept

    def folder(self, index: int, attempt: int, files: dict[str, bytes]) -> None:
        """The cell's manifest and records file as its run began (replacing what was kept)."""
        if self.current.get(index) != attempt:
            return
        self.files[index] = {**self.files[index], **files}
        self.lines[index] = []
        self.fresh[index] = (dict(files), [])

    def add_lines(self, index: int, attempt: int, lines: bytes) -> None:
        """Records the cell's run wrote since the last call (whole lines)."""
        if self.current.get(index) != attempt:
            return
        self.lines[index].append(lines)
        self.fresh.setdefault(index, ({}, []))[1].append(lines)

    def take(self) -> dict[int, tuple[dict[str, bytes], bytes]]:
        """What came since the last call, by cell: files to replace and lines to append."""
        fresh, self.fresh = self.fresh, {}
        return {index: (files, b"".join(lines)) for index, (files, lines) in fresh.items()}

    def forget(self, index: int) -> None:
        """The cell ended and the driver wrote its folder: drop what was kept of it."""
        self.files.pop(index, None)
        self.lines.pop(index, None)
        self.fresh.pop(index, None)
