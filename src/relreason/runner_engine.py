"""The concurrent part of one run: ``Engine`` takes items through cache lookup, rate limits,
retried backend calls, the optional second stage and the scorer, and appends one record each.

Lives inside one event loop; :mod:`relreason.runner` sets it up and writes the run folder.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import random
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_base, wait_exponential, wait_random

from relreason.cache import ResponseCache, cache_key, stable_identity
from relreason.errors import RelreasonError
from relreason.models.base import ModelBackend, TransientError
from relreason.progress import RunProgress
from relreason.results import RecordWriter, scrub_secrets
from relreason.run_options import RunOptions
from relreason.types import ChoiceRequest, EvalItem, GenerationRequest, Response
from relreason.types import Task as EvalTask

_CACHE_FLUSH_EVERY = 256
_MAX_RETRY_AFTER_S = 600.0


class _RetryAfterOrBackoff(wait_base):
    """Wait the server's Retry-After (plus a little jitter) when given, else exponential
    backoff with jitter."""

    def __init__(self, initial: float, maximum: float, rng: random.Random) -> None:
        self._backoff = wait_exponential(multiplier=initial, max=maximum) + wait_random(0, initial)
        self._rng = rng

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None else None
        retry_after = getattr(error, "retry_after", None)
        if isinstance(retry_after, int | float) and retry_after >= 0:
            wait = min(float(retry_after), _MAX_RETRY_AFTER_S)
            return wait + self._rng.uniform(0, 0.1 * wait + 0.01)
        return float(self._backoff(retry_state))


class _CallFailed(Exception):
    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


def _error_text(error: BaseException, timeout: float) -> str:
    if isinstance(error, TimeoutError):
        return f"timed out after {timeout:g} s"
    text = str(error) or type(error).__name__
    return scrub_secrets(f"{type(error).__name__}: {text}")


_PLAIN = (str, int, float, bool, type(None))


def _json_labels(labels: Mapping[str, Any]) -> dict[str, Any]:
    """Labels as JSON-ready values (fast path for plain values and lists of them)."""
    out: dict[str, Any] = {}
    for key, value in labels.items():
        if isinstance(value, _PLAIN):
            out[key] = value
        elif isinstance(value, list | tuple) and all(isinstance(v, _PLAIN) for v in value):
            out[key] = list(value)
        else:
            out[key] = json.loads(json.dumps(value, default=str))
    return out


@dataclass
class _Item:
    """One item on its way through the stages."""

    item: EvalItem
    first: Response | None = None
    second: Response | None = None
    attempts: int = 0
    cached: bool = True
    error: str | None = None
    looked_up: bool = False  # stage 1 already missed the cache


class Engine:
    """The concurrent part of one run (lives inside one event loop)."""

    def __init__(
        self,
        task: EvalTask,
        backend: ModelBackend,
        options: RunOptions,
        cache: ResponseCache | None,
        writer: RecordWriter,
        records: dict[int, dict[str, Any]],
        progress: RunProgress,
        progress_id: Any,
    ) -> None:
        from relreason.runner_limits import RateLimits

        self.task = task
        self.backend = backend
        self.options = options
        self.cache = cache
        self.writer = writer
        self.records = records
        self.progress = progress
        self.progress_id = progress_id
        self.identity = stable_identity(backend.describe())
        self.limits = RateLimits(options.requests_per_minute, options.tokens_per_minute)
        self.semaphore = asyncio.Semaphore(options.concurrency)
        self.rng = random.Random(options.seed)
        self.batch_size = max(1, int(getattr(backend, "batch_size", 1) or 1))
        self.second_stage = task.second_stage if options.scoring == "generate" else None
        self.second_params = dataclasses.replace(
            options.params, max_new_tokens=options.second_stage_max_new_tokens
        )
        self._pending_puts: list[tuple[str, Response]] = []
        self.lines: dict[int, str] = {}
        self.params_json = options.to_json()["params"]
        self.second_params_json = {
            **self.params_json,
            "max_new_tokens": options.second_stage_max_new_tokens,
        }

    # requests and keys -------------------------------------------------------------
    def _first_request(self, item: EvalItem) -> GenerationRequest | ChoiceRequest:
        if self.options.scoring == "logprob":
            return ChoiceRequest(item.prompt, self.task.continuations(item), reference=item.gold)
        return GenerationRequest(
            item.prompt, self.options.params, choices=item.choices, reference=item.gold
        )

    def _key(self, item: EvalItem, prompt: str, stage: int) -> str:
        extra: dict[str, Any] = {"choices": list(item.choices), "reference": item.gold}
        if self.options.scoring == "logprob":
            extra["continuations"] = self.task.continuations(item)
            return cache_key(self.identity, "score_choices", prompt, extra)
        extra["params"] = self.params_json if stage == 1 else self.second_params_json
        return cache_key(self.identity, "generate", prompt, extra)

    # cache -------------------------------------------------------------------------
    def _lookup(self, keys: Sequence[str]) -> dict[str, Response]:
        if self.cache is None or self.options.refresh:
            return {}
        return self.cache.get_many(keys)

    def _remember(self, key: str, response: Response) -> None:
        if self.cache is None or response.error is not None:
            return
        self._pending_puts.append((key, response))
        if len(self._pending_puts) >= _CACHE_FLUSH_EVERY:
            self.flush_cache()

    def flush_cache(self) -> None:
        """Write the buffered responses to the cache."""
        if self.cache is not None and self._pending_puts:
            puts, self._pending_puts = self._pending_puts, []
            self.cache.put_many(puts)

    # backend calls -----------------------------------------------------------------
    async def _call(
        self, call: Callable[[], Awaitable[list[Response]]], n: int, tokens: int
    ) -> tuple[list[Response], int]:
        """Call the backend with retries; return the responses and the number of attempts.

        Raises ``_CallFailed`` with the last error once retries are exhausted (or for an
        error that is not worth retrying); ``RelreasonError`` passes through.
        """
        timeout = self.options.request_timeout if self.batch_size == 1 else None
        retrying = AsyncRetrying(
            retry=retry_if_exception_type((TransientError, TimeoutError)),
            stop=stop_after_attempt(self.options.max_retries + 1),
            wait=_RetryAfterOrBackoff(
                self.options.retry_initial_wait, self.options.retry_max_wait, self.rng
            ),
            reraise=True,
        )
        attempts = 0
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    await self.limits.acquire(n, tokens)
                    async with self.semaphore:
                        responses = await asyncio.wait_for(call(), timeout)
        except RelreasonError:
            raise
        except Exception as error:
            raise _CallFailed(_error_text(error, self.options.request_timeout), attempts) from None
        if len(responses) != n:
            message = f"backend returned {len(responses)} responses for {n} requests"
            raise _CallFailed(message, attempts)
        used = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in responses)
        if used > tokens:
            await self.limits.add_tokens(used - tokens)
        return responses, attempts

    async def _stage(self, work: list[_Item], stage: int) -> None:
        """Fill ``first`` (stage 1) or ``second`` (stage 2) of each item: cache, then backend."""
        prompts = [self._prompt(w, stage) for w in work]
        keys = [self._key(w.item, p, stage) for w, p in zip(work, prompts, strict=True)]
        fresh = [k for w, k in zip(work, keys, strict=True) if stage == 2 or not w.looked_up]
        hits = self._lookup(fresh) if fresh else {}
        missing = [(w, p, k) for w, p, k in zip(work, prompts, keys, strict=True) if k not in hits]
        for w, _, k in zip(work, prompts, keys, strict=True):
            if k in hits:
                self._set(w, stage, hits[k])
        if not missing:
            return
        requests = [self._request(w.item, p, stage) for w, p, _ in missing]
        tokens = sum(math.ceil(len(p) / 4) for _, p, _ in missing)
        call = self._caller(requests)
        try:
            responses, attempts = await self._call(call, len(requests), tokens)
        except _CallFailed as failure:
            for w, _, _ in missing:
                w.attempts += failure.attempts
                w.cached = False
                w.error = str(failure)
            return
        for (w, _, k), response in zip(missing, responses, strict=True):
            w.attempts += attempts
            w.cached = False
            if response.error is not None:
                w.error = scrub_secrets(response.error)
                continue
            self._set(w, stage, response)
            self._remember(k, response)

    def _prompt(self, w: _Item, stage: int) -> str:
        if stage == 1:
            return w.item.prompt
        assert self.second_stage is not None and w.first is not None
        return self.second_stage(w.item, w.first.text or "")

    def _request(
        self, item: EvalItem, prompt: str, stage: int
    ) -> GenerationRequest | ChoiceRequest:
        if stage == 1:
            return self._first_request(item)
        return GenerationRequest(
            prompt, self.second_params, choices=item.choices, reference=item.gold
        )

    def _caller(
        self, requests: list[GenerationRequest | ChoiceRequest]
    ) -> Callable[[], Awaitable[list[Response]]]:
        if self.options.scoring == "logprob":
            choice_requests = [r for r in requests if isinstance(r, ChoiceRequest)]
            return lambda: self.backend.score_choices(choice_requests)
        gen_requests = [r for r in requests if isinstance(r, GenerationRequest)]
        return lambda: self.backend.generate(gen_requests)

    @staticmethod
    def _set(w: _Item, stage: int, response: Response) -> None:
        if stage == 1:
            w.first = response
        else:
            w.second = response

    # items -------------------------------------------------------------------------
    async def process(self, work: list[_Item]) -> None:
        """Run a batch of items through every stage and record each."""
        todo = [w for w in work if w.first is None]
        if todo:
            await self._stage(todo, 1)
        if self.second_stage is not None:
            todo = [w for w in work if w.error is None and w.first is not None]
            if todo:
                await self._stage(todo, 2)
        for w in work:
            self.finish(w)

    def finish(self, w: _Item) -> None:
        """Score one item, append its record and count it."""
        record = self._record(w)
        self.records[w.item.index] = record
        self.lines[w.item.index] = self.writer.append(record)
        failed = record["status"] == "failed"
        self.progress.advance(self.progress_id, correct=bool(record["correct"]), failed=failed)

    def _record(self, w: _Item) -> dict[str, Any]:
        item = w.item
        scored = w.second if self.second_stage is not None else w.first
        responses = [r for r in (w.first, w.second) if r is not None]
        base = {
            "index": item.index,
            "item_id": item.item_id,
            "gold": item.gold,
        }
        tail = {
            "output": w.first.text if w.first is not None else None,
            "second_output": w.second.text if w.second is not None else None,
            "choice_logprobs": None,
            "top_logprobs": None,
            "usage": {
                "prompt_tokens": sum(r.usage.prompt_tokens for r in responses),
                "completion_tokens": sum(r.usage.completion_tokens for r in responses),
            },
            "latency_s": round(sum(r.latency_s for r in responses), 4),
            "attempts": w.attempts,
            "cached": w.cached and bool(responses),
            "error": None,
            "labels": _json_labels(item.labels),
        }
        if w.error is not None or scored is None:
            verdict = {
                "answer": None,
                "status": "failed",
                "correct": False,
                "method": "none",
                "detail": None,
            }
            tail["error"] = w.error or "no response"
            return {**base, **verdict, **tail}
        extraction = self.task.scorer(item, scored)
        verdict = {
            "answer": extraction.answer,
            "status": extraction.status,
            "correct": extraction.correct,
            "method": extraction.method,
            "detail": extraction.detail,
        }
        if scored.choice_logprobs is not None:
            tail["choice_logprobs"] = _finite_or_null(scored.choice_logprobs)
        if scored.top_logprobs:
            tail["top_logprobs"] = _finite_or_null(scored.top_logprobs[0])
        return {**base, **verdict, **tail}

    async def run(self, items: Sequence[EvalItem]) -> None:
        """Process ``items``: cache hits at once, the rest by concurrent workers."""
        work = [_Item(item) for item in items]
        if self.second_stage is None and self.cache is not None and not self.options.refresh:
            keys = [self._key(w.item, w.item.prompt, 1) for w in work]
            hits = self._lookup(keys)
            rest = []
            for w, k in zip(work, keys, strict=True):
                if k in hits:
                    w.first = hits[k]
                    self.finish(w)
                else:
                    rest.append(w)
            work = rest
            for w in rest:
                w.looked_up = True
            work = rest
        batches = [work[i : i + self.batch_size] for i in range(0, len(work), self.batch_size)]
        shared = iter(batches)  # the workers take batches from one iterator, in order
        n_workers = min(len(batches), self.options.concurrency * (2 if self.batch_size == 1 else 1))
        await asyncio.gather(*(self._worker(shared) for _ in range(n_workers)))

    async def _worker(self, batches: Iterator[list[_Item]]) -> None:
        for batch in batches:
            await self.process(batch)


def _finite_or_null(values: Mapping[str, float]) -> dict[str, float | None]:
    """Log-probabilities for a JSON record: -inf (a choice outside the top-k) becomes null."""
    return {k: (v if math.isfinite(v) else None) for k, v in values.items()}
