"""Run a Task on a backend into a run folder: concurrent, rate-limited, retried, cached, resumable.

Flow per item: cache lookup -> (rate limits -> backend call, retried by tenacity) -> optional
second stage (MCR zero-shot CoT answer extraction) -> scorer -> one line in ``records.jsonl``.
An item that still fails after the retries is recorded as ``failed`` with its last error; a
rerun (or :func:`resume_run`) redoes only failed and missing items.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import math
import os
import platform
import random
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, Literal

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_base, wait_exponential, wait_random

import relreason
from relreason.cache import ResponseCache, cache_key, stable_identity
from relreason.cost import estimate_cost, load_prices
from relreason.errors import RelreasonError, UsageError
from relreason.models.base import ModelBackend, TransientError
from relreason.progress import RunProgress
from relreason.results import (
    RecordWriter,
    RunSummary,
    atomic_write_json,
    format_summary,
    git_commit,
    is_run_folder,
    load_records,
    read_manifest,
    scrub_secrets,
    strip_secret_options,
    summarize,
    write_sorted_records,
)
from relreason.types import ChoiceRequest, EvalItem, GenerationParams, GenerationRequest, Response
from relreason.types import Task as EvalTask

CACHE_DIR_ENV = "RELREASON_CACHE_DIR"
_CACHE_FLUSH_EVERY = 256
_MAX_RETRY_AFTER_S = 600.0


def default_cache_path() -> Path:
    """Return ``$RELREASON_CACHE_DIR/cache.sqlite3``, else the user cache folder's."""
    root = os.environ.get(CACHE_DIR_ENV)
    if not root:
        import platformdirs

        root = platformdirs.user_cache_dir("relreason")
    return Path(root) / "cache.sqlite3"


@dataclass(frozen=True)
class RunOptions:
    """How to run: scoring mode, generation parameters, concurrency, limits, retries, cache.

    ``request_timeout`` guards each API request (backends with ``batch_size == 1``); local
    batch backends get no outer time-out. ``seed`` seeds the retry jitter and is recorded.
    """

    scoring: Literal["generate", "logprob"] = "generate"
    params: GenerationParams = field(default_factory=GenerationParams)
    concurrency: int = 8
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    max_retries: int = 6
    request_timeout: float = 60.0
    use_cache: bool = True
    refresh: bool = False
    cache_path: Path | None = None
    limit: int | None = None
    show_progress: bool = False
    seed: int = 0
    retry_initial_wait: float = 0.5
    retry_max_wait: float = 30.0
    second_stage_max_new_tokens: int = 32

    def validate(self) -> None:
        """Raise ``UsageError`` naming the first option with an impossible value."""
        checks = [
            ("scoring", self.scoring in ("generate", "logprob"), "generate or logprob"),
            ("concurrency", self.concurrency >= 1, "at least 1"),
            ("max_retries", self.max_retries >= 0, "0 or more"),
            ("request_timeout", self.request_timeout > 0, "positive"),
            ("limit", self.limit is None or self.limit >= 0, "0 or more"),
            ("requests_per_minute", _positive_or_none(self.requests_per_minute), "positive"),
            ("tokens_per_minute", _positive_or_none(self.tokens_per_minute), "positive"),
            ("params.max_new_tokens", self.params.max_new_tokens >= 1, "at least 1"),
        ]
        for name, ok, expected in checks:
            if not ok:
                value = getattr(self, name, None) if "." not in name else self.params.max_new_tokens
                raise UsageError(f"option {name} must be {expected}, got {value!r}")

    def to_json(self) -> dict[str, Any]:
        """Return the options as a JSON-ready dict (paths as strings, tuples as lists)."""
        data = dataclasses.asdict(self)
        data["params"]["stop"] = list(self.params.stop)
        data["cache_path"] = None if self.cache_path is None else str(self.cache_path)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunOptions:
        """Rebuild options from :meth:`to_json` output (unknown keys are ignored).

        Raises ``UsageError`` for values of the wrong type.
        """
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        try:
            params = dict(known.pop("params", None) or {})
            if "stop" in params:
                params["stop"] = tuple(params["stop"])
            if known.get("cache_path") is not None:
                known["cache_path"] = Path(known["cache_path"])
            options = cls(params=GenerationParams(**params), **known)
        except TypeError as error:
            raise UsageError(f"bad run options: {error}") from None
        options.validate()
        return options


def _positive_or_none(value: float | None) -> bool:
    return value is None or (value > 0 and not math.isinf(value))


def run_config(task: EvalTask, backend: ModelBackend, options: RunOptions) -> dict[str, Any]:
    """Return what makes two runs the same run (compared when a folder is reused or resumed)."""
    config = {
        "benchmark": task.benchmark,
        "task": task.name,
        "description": dict(task.description),
        "model": backend.spec,
        "backend": stable_identity(backend.describe()),
        "scoring": options.scoring,
        "params": options.to_json()["params"],
    }
    normalised: dict[str, Any] = json.loads(json.dumps(config, default=str))
    return normalised


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@cache
def _commit() -> str | None:
    return git_commit()


def _checksums(benchmark: str, data_dir: Path | None) -> Any:
    try:
        from relreason.sources import file_checksums
    except ImportError:
        return None
    try:
        return file_checksums(benchmark, data_dir)
    except (RelreasonError, OSError, ValueError):
        return None


def _new_manifest(
    task: EvalTask,
    backend: ModelBackend,
    options: RunOptions,
    model_options: Mapping[str, Any],
    data_dir: Path | None,
    config: Mapping[str, Any],
) -> dict[str, Any]:
    return {
        "kind": "relreason-run",
        "relreason_version": relreason.__version__,
        "git_commit": _commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "benchmark": task.benchmark,
        "task": task.name,
        "description": config["description"],
        "data_checksums": _checksums(task.benchmark, data_dir),
        "model": {
            "spec": backend.spec,
            "backend": json.loads(json.dumps(dict(backend.describe()), default=str)),
            "options": json.loads(json.dumps(strip_secret_options(model_options), default=str)),
        },
        "scoring": options.scoring,
        "options": options.to_json(),
        "seeds": {
            "run": options.seed,
            "generation": options.params.seed,
            "model": model_options.get("seed"),
        },
        "config": dict(config),
        "n_items": len(task.items)
        if options.limit is None
        else min(options.limit, len(task.items)),
        "started_at": _now(),
        "ended_at": None,
        "sessions": [],
        "status": "running",
        "usage": {"prompt_tokens": 0, "completion_tokens": 0},
        "cost_usd": None,
    }


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    return [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]


def _prepare_folder(
    out_dir: Path, config: Mapping[str, Any], fresh: dict[str, Any]
) -> dict[str, Any]:
    """Create the run folder or check an existing one; return the manifest to use.

    Raises ``UsageError`` for an unwritable place, a non-run folder that is not empty, or a run
    folder made with another configuration.
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"output folder {out_dir} is a file")
    if is_run_folder(out_dir):
        manifest = read_manifest(out_dir)
        differing = _differences(manifest.get("config") or {}, config)
        if differing:
            raise UsageError(
                f"{out_dir} holds a run of another configuration (differs in: "
                f"{', '.join(differing)}); choose another output folder, or resume it as it is"
            )
        return manifest
    if out_dir.is_dir() and any(out_dir.iterdir()):
        raise UsageError(f"output folder {out_dir} is not empty and is not a run folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"cannot create output folder {out_dir}: {reason}") from None
    atomic_write_json(out_dir / "manifest.json", fresh)
    return fresh


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


class _Engine:
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


def _selected(task: EvalTask, options: RunOptions) -> tuple[EvalItem, ...]:
    return task.items if options.limit is None else task.items[: options.limit]


async def arun_task(
    task: EvalTask,
    backend: ModelBackend,
    out_dir: Path,
    options: RunOptions,
    *,
    model_options: Mapping[str, Any] | None = None,
    data_dir: Path | None = None,
    progress: RunProgress | None = None,
    prices_file: Path | None = None,
) -> RunSummary:
    """Run ``task`` on ``backend`` into the run folder ``out_dir``; return its summary.

    An existing run folder of the same configuration is continued (finished items are kept,
    failed and missing ones are redone). Raises ``UsageError`` for bad options, an unwritable or
    foreign folder, or a run folder of another configuration; ``DataError`` for a corrupt one.
    """
    options.validate()
    out_dir = Path(out_dir)
    model_options = dict(model_options or {})
    config = run_config(task, backend, options)
    fresh = _new_manifest(task, backend, options, model_options, data_dir, config)
    manifest = _prepare_folder(out_dir, config, fresh)
    manifest["options"] = options.to_json()
    manifest["status"] = "running"
    manifest["n_items"] = fresh["n_items"]
    session = {"started_at": _now(), "ended_at": None}
    manifest.setdefault("sessions", []).append(session)
    atomic_write_json(out_dir / "manifest.json", manifest)
    prices = load_prices(prices_file)

    records = load_records(out_dir, repair=True)
    selected = _selected(task, options)
    done = {i for i, r in records.items() if r.get("status") != "failed"}
    todo = [item for item in selected if item.index not in done]
    cache = None
    if options.use_cache:
        cache = ResponseCache(options.cache_path or default_cache_path())
    own_progress = progress is None
    display = progress or RunProgress(enabled=options.show_progress)
    finished = [records[i] for i in (it.index for it in selected) if i in done]
    progress_id = display.start_run(
        f"{task.name} | {backend.spec}",
        len(selected),
        done=len(finished),
        correct=sum(bool(r.get("correct")) for r in finished),
    )
    started = time.monotonic()
    writer = RecordWriter(out_dir)
    engine = _Engine(task, backend, options, cache, writer, records, display, progress_id)
    try:
        await engine.run(todo)
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            engine.flush_cache()
        if cache is not None:
            cache.close()
        if own_progress:
            display.close()

    write_sorted_records(out_dir, records.values(), engine.lines)
    selected_done = all(item.index in records for item in selected)
    summary = summarize(
        records.values(),
        out_dir=out_dir,
        task=task.name,
        model=backend.spec,
        cost_usd=None,
        complete=selected_done,
        elapsed_s=round(time.monotonic() - started, 3),
        group_by=task.group_by or None,
    )
    summary.cost_usd = estimate_cost(
        backend.spec, summary.usage["prompt_tokens"], summary.usage["completion_tokens"], prices
    )
    atomic_write_json(out_dir / "summary.json", summary.to_json())
    session["ended_at"] = _now()
    manifest.update(
        status="complete" if selected_done else "running",
        ended_at=session["ended_at"],
        usage=summary.usage,
        cost_usd=summary.cost_usd,
    )
    atomic_write_json(out_dir / "manifest.json", manifest)
    if options.show_progress and own_progress:
        print(format_summary(summary))
    return summary


def run_task(
    task: EvalTask,
    backend: ModelBackend,
    out_dir: Path,
    options: RunOptions,
    *,
    model_options: Mapping[str, Any] | None = None,
    data_dir: Path | None = None,
    prices_file: Path | None = None,
    close_backend: bool = True,
) -> RunSummary:
    """Synchronous :func:`arun_task` (starts its own event loop; not for use inside one).

    The event loop ends with the run, and API clients' connections are bound to it, so the
    backend is closed (``aclose``) before it ends unless ``close_backend`` is False.
    Returns the run's summary; raises as :func:`arun_task` does.
    """

    async def run() -> RunSummary:
        try:
            return await arun_task(
                task,
                backend,
                out_dir,
                options,
                model_options=model_options,
                data_dir=data_dir,
                prices_file=prices_file,
            )
        finally:
            if close_backend:
                await backend.aclose()

    return asyncio.run(run())


def _override(options: RunOptions, override: Mapping[str, Any] | None) -> RunOptions:
    if not override:
        return options
    unknown = sorted(set(override) - set(RunOptions.__dataclass_fields__))
    if unknown:
        raise UsageError(f"unknown run option(s): {', '.join(unknown)}")
    try:
        updated = dataclasses.replace(options, **override)
    except TypeError as error:
        raise UsageError(f"bad run option: {error}") from None
    updated.validate()
    return updated


async def aresume_run(
    out_dir: Path,
    *,
    data_dir: Path | None = None,
    options_override: Mapping[str, Any] | None = None,
    task: EvalTask | None = None,
    backend: ModelBackend | None = None,
    progress: RunProgress | None = None,
) -> RunSummary:
    """Continue the run in ``out_dir`` as its manifest describes; return its summary.

    ``task``/``backend`` may be given explicitly (they must match the manifest); otherwise they
    are rebuilt with ``relreason.tasks.build_task_from_description`` and
    ``relreason.models.registry.load_backend``. Raises ``UsageError`` for a non-run folder or a
    configuration that differs from the folder's, ``DataError`` for a corrupt manifest.
    """
    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    try:
        model = manifest["model"]
        spec = str(model["spec"])
        model_options = dict(model.get("options") or {})
        description = manifest["description"]
        options = RunOptions.from_json(manifest["options"])
    except (KeyError, TypeError) as error:
        from relreason.errors import DataError

        raise DataError(str(out_dir / "manifest.json"), f"missing field {error}") from None
    options = _override(options, options_override)
    own_backend = backend is None
    if task is None:
        from relreason.tasks import build_task_from_description

        task = build_task_from_description(description, data_dir)
    if backend is None:
        from relreason.models.registry import load_backend

        backend = load_backend(spec, **model_options)
    try:
        return await arun_task(
            task,
            backend,
            out_dir,
            options,
            model_options=model_options,
            data_dir=data_dir,
            progress=progress,
        )
    finally:
        if own_backend:
            await backend.aclose()


def resume_run(
    out_dir: Path,
    *,
    data_dir: Path | None = None,
    options_override: Mapping[str, Any] | None = None,
    task: EvalTask | None = None,
    backend: ModelBackend | None = None,
) -> RunSummary:
    """Synchronous :func:`aresume_run`; returns the run's summary, raises as it does.

    A ``backend`` passed in is closed when the run's event loop ends (as in :func:`run_task`).
    """

    async def run() -> RunSummary:
        try:
            return await aresume_run(
                out_dir,
                data_dir=data_dir,
                options_override=options_override,
                task=task,
                backend=backend,
            )
        finally:
            if backend is not None:
                await backend.aclose()

    return asyncio.run(run())
