"""The call path of a run: response cache, rate limits, time-out and retries around a backend.

``CallPath`` knows requests and responses, not items or benchmarks. One retry layer, in one
place: ``TransientError`` and time-outs are retried with exponential backoff and jitter (or the
server's Retry-After), up to ``max_retries``; then ``CallFailed`` carries the last error.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_base, wait_exponential, wait_random

from relreason.errors import RelreasonError, ServerUnreachableError
from relreason.models.base import ModelBackend, TransientError
from relreason.redact import scrub_secrets
from relreason.run.budget import Budget
from relreason.run.cache import ResponseCache, cache_key, stable_identity
from relreason.run.events import Event, Retrying
from relreason.run.limits import RateLimits
from relreason.run.options import RunOptions
from relreason.run.shared import SharedLimits, SharedServer
from relreason.run.warnings import warn
from relreason.types import ChoiceRequest, GenerationRequest, Response
from relreason.untrusted import clean_response

_CACHE_FLUSH_EVERY = 256

Request = GenerationRequest | ChoiceRequest


class _RetryAfterOrBackoff(wait_base):
    """Wait the server's Retry-After (plus a little jitter) when given, else exponential
    backoff with jitter."""

    def __init__(self, initial: float, maximum: float, rng: random.Random, cap: float) -> None:
        self._backoff = wait_exponential(multiplier=initial, max=maximum) + wait_random(0, initial)
        self._rng = rng
        self._cap = cap

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None else None
        retry_after = getattr(error, "retry_after", None)
        if isinstance(retry_after, int | float) and retry_after >= 0:
            wait = min(float(retry_after), self._cap)
            return min(wait + self._rng.uniform(0, 0.1 * wait + 0.01), self._cap)
        return min(float(self._backoff(retry_state)), self._cap)


class CallFailed(Exception):
    """A call that failed for good: the last error (secrets scrubbed) and the attempts made."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


def _error_text(error: BaseException, timeout: float) -> str:
    if isinstance(error, TimeoutError):
        return f"timed out after {timeout:g} s"
    text = str(error) or type(error).__name__
    return scrub_secrets(f"{type(error).__name__}: {text}")


def _unreachable(error: TransientError, count: int) -> str:
    return scrub_secrets(
        f"{error.connection}: is the server running? "
        f"(stopped after {count} consecutive connection failures; last: {error})"
    )


class CallPath:
    """Cache, limits, time-out and retries around one backend (lives inside one event loop)."""

    def __init__(
        self,
        backend: ModelBackend,
        options: RunOptions,
        cache: ResponseCache | None,
        emit: Callable[[Event], None] = lambda event: None,
        shared: SharedServer | None = None,
    ) -> None:
        self.backend = backend
        self.options = options
        self.cache = cache
        self.emit = emit
        self.shared = shared  # limits and breaker shared with other processes (Ray sweeps)
        self.identity = stable_identity(backend.describe())
        self.limits: RateLimits | SharedLimits = (
            shared.limits
            if shared is not None
            else RateLimits(
                options.requests_per_minute, options.tokens_per_minute, options.max_wait
            )
        )
        self.semaphore = asyncio.Semaphore(options.concurrency)
        self.rng = random.Random(options.seed)
        self.batch_size = max(1, backend.batch_size)
        self._pending_puts: list[tuple[str, Response]] = []
        self._connection_failures = 0
        self._tripped: ServerUnreachableError | None = None
        self.served: str | None = None  # the model the API says answers (learnt as we go)
        self.budget: Budget | None = None  # the session's spending limit (run.budget)

    # cache -------------------------------------------------------------------------
    def key(self, operation: str, prompt: str, extra: Mapping[str, Any]) -> str:
        """The cache key of a request: backend identity, operation, prompt and parameters."""
        return cache_key(self.identity, operation, prompt, extra)

    def lookup(self, keys: Sequence[str]) -> dict[str, Response]:
        """Return the cached responses among ``keys`` (none with ``--refresh`` or no cache);
        an answer over ``max_answer_chars`` is left out (asked again, then refused as over).

        A cache that fails (damaged, unreadable) is reported once and dropped for the run."""
        if self.cache is None or self.options.refresh:
            return {}
        try:
            hits = self.cache.get_many(keys)
        except (sqlite3.Error, OSError) as error:
            self._drop_cache(error)
            return {}
        cap = self.options.max_answer_chars  # a longer cached answer is asked again
        hits = {
            k: clean_response(r) for k, r in hits.items() if r.text is None or len(r.text) <= cap
        }
        if self.served is None:
            return hits
        return {k: r for k, r in hits.items() if r.served_model in (None, self.served)}

    def remember(self, key: str, response: Response) -> None:
        """Buffer a successful response for the cache (written in batches)."""
        if self.cache is None or response.error is not None:
            return
        self._pending_puts.append((key, response))
        if len(self._pending_puts) >= _CACHE_FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write the buffered responses to the cache (a failing cache is reported once and
        dropped: the run goes on without it)."""
        if self.cache is not None and self._pending_puts:
            puts, self._pending_puts = self._pending_puts, []
            try:
                self.cache.put_many(puts)
            except (sqlite3.Error, OSError) as error:
                self._drop_cache(error)

    def close_cache(self) -> None:
        """Flush and close the cache (never raises)."""
        self.flush()
        if self.cache is not None:
            with contextlib.suppress(sqlite3.Error, OSError):
                self.cache.close()

    def _drop_cache(self, error: BaseException) -> None:
        where = self.cache.path if self.cache is not None else "?"
        warn(f"the response cache {where} failed ({error}); the run goes on without it")
        if self.cache is not None:
            with contextlib.suppress(sqlite3.Error, OSError):
                self.cache.close()
        self.cache = None
        self._pending_puts = []

    # calls -------------------------------------------------------------------------
    async def send(self, requests: Sequence[Request], tokens: int) -> tuple[list[Response], int]:
        """Send a batch of requests (all generation or all choice scoring) with retries.

        ``tokens`` is the estimate charged to the token limit first. Returns the responses and
        the number of attempts. Raises ``CallFailed`` once retries are exhausted (or for an
        error not worth retrying), ``BudgetReachedError`` (sending nothing) once the session's
        budget is spent; ``RelreasonError`` passes through.
        """
        n = len(requests)
        if self.budget is not None:
            self.budget.check()
        if all(isinstance(r, ChoiceRequest) for r in requests):
            choice = [r for r in requests if isinstance(r, ChoiceRequest)]

            async def call() -> list[Response]:
                return await self.backend.score_choices(choice)
        else:
            generation = [r for r in requests if isinstance(r, GenerationRequest)]

            async def call() -> list[Response]:
                return await self.backend.generate(generation)

        timeout = self.options.request_timeout if self.batch_size == 1 else None
        attempts = 1
        try:  # the first attempt outside tenacity: most calls need no other (and its set-up
            # per call cost more than the rest of the call path)
            responses = await self._attempt(call, n, tokens, timeout)
        except RelreasonError:
            raise
        except (TransientError, TimeoutError) as error:
            if self.options.max_retries == 0:
                raise CallFailed(_error_text(error, self.options.request_timeout), 1) from None
            responses, attempts = await self._retry(call, n, tokens, timeout, error)
        except Exception as error:
            raise CallFailed(_error_text(error, self.options.request_timeout), 1) from None
        if len(responses) != n:
            message = f"backend returned {len(responses)} responses for {n} requests"
            raise CallFailed(message, attempts)
        if self.served is None:
            self.served = next((r.served_model for r in responses if r.served_model), None)
        if self.budget is not None:
            self.budget.spend(r.usage for r in responses)
        used = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in responses)
        if used > tokens:  # charged at most one minute's budget (a server may report nonsense)
            await self.limits.add_tokens(used - tokens)
        return [self._checked(r) for r in responses], attempts

    async def _attempt(
        self, call: Callable[[], Any], n: int, tokens: int, timeout: float | None
    ) -> list[Response]:
        if self._tripped is not None:
            raise self._tripped
        await self.limits.acquire(n, tokens)
        async with self.semaphore:
            return await self._guarded(call, timeout)

    async def _retry(
        self,
        call: Callable[[], Any],
        n: int,
        tokens: int,
        timeout: float | None,
        first: BaseException,
    ) -> tuple[list[Response], int]:
        """The attempts after a first one that failed with ``first`` (tenacity: backoff or
        Retry-After, ``max_retries`` in all); return the responses and the attempts made."""
        retrying = AsyncRetrying(
            retry=retry_if_exception_type((TransientError, TimeoutError)),
            stop=stop_after_attempt(self.options.max_retries + 1),
            wait=_RetryAfterOrBackoff(
                self.options.retry_initial_wait,
                self.options.retry_max_wait,
                self.rng,
                self.options.max_wait,
            ),
            before_sleep=self._before_sleep,
            reraise=True,
        )
        attempts = 0
        failed: BaseException | None = first
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    if failed is not None:  # attempt 1, made already: its error, again
                        error, failed = failed, None
                        raise error
                    responses = await self._attempt(call, n, tokens, timeout)
        except RelreasonError:
            raise
        except Exception as error:
            raise CallFailed(_error_text(error, self.options.request_timeout), attempts) from None
        return responses, attempts

    def _checked(self, response: Response) -> Response:
        """A response safe to record: text that is not a string becomes a failure saying so,
        lone surrogates are replaced (``note`` says so), and an answer over
        ``max_answer_chars`` becomes a failure saying so (failures are never cached)."""
        if response.text is not None and not isinstance(response.text, str):
            return Response(
                usage=response.usage,
                latency_s=response.latency_s,
                error=f"the backend returned text of type {type(response.text).__name__}, "
                "not a string",
            )
        response = clean_response(response)
        cap = self.options.max_answer_chars
        if response.text is None or len(response.text) <= cap:
            return response
        return Response(
            usage=response.usage,
            latency_s=response.latency_s,
            error=f"answer of {len(response.text)} characters is over the cap of {cap} "
            "(--max-answer-chars); not recorded",
        )

    async def _guarded(self, call: Callable[[], Any], timeout: float | None) -> list[Response]:
        """One attempt; counts consecutive failures to connect (the circuit breaker, shared
        with other processes when ``shared`` is given)."""
        if self._tripped is None and self.shared is not None:
            message = await self.shared.tripped()
            if message is not None:
                self._tripped = ServerUnreachableError(message)
        if self._tripped is not None:
            raise self._tripped
        try:
            async with asyncio.timeout(timeout):  # no task per call (wait_for makes one)
                responses: list[Response] = await call()
        except TransientError as error:
            if error.connection is None:
                self._got_through()
                raise
            self._connection_failures += 1
            count = self._connection_failures
            if self.shared is not None:
                count = await self.shared.failed()
            if count >= self.options.max_connection_failures:
                self._tripped = ServerUnreachableError(_unreachable(error, count))
                if self.shared is not None:
                    self.shared.trip(str(self._tripped))
                raise self._tripped from None
            raise
        self._got_through()
        return responses

    def _got_through(self) -> None:
        self._connection_failures = 0
        if self.shared is not None:
            self.shared.succeeded()

    def _before_sleep(self, state: RetryCallState) -> None:
        outcome = state.outcome
        error = outcome.exception() if outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        reason = "" if error is None else _error_text(error, self.options.request_timeout)
        asked = getattr(error, "retry_after", None)
        if isinstance(asked, int | float) and asked > self.options.max_wait:
            reason += f" (Retry-After {asked:g} s capped at {self.options.max_wait:g} s)"
        self.emit(Retrying(attempt=state.attempt_number, wait_s=float(wait), reason=reason))
