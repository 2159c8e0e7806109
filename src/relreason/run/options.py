"""How a run is run: ``RunOptions`` (scoring mode, generation parameters, concurrency, limits,
retries, cache), with validation and a JSON round trip for the run folder's manifest."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from relreason.errors import UsageError
from relreason.types import GenerationParams, Task


@dataclass(frozen=True)
class RunOptions:
    """How to run: scoring mode, generation parameters, concurrency, limits, retries, cache.

    ``request_timeout`` guards each API request (backends with ``batch_size == 1``); local
    batch backends get no outer time-out. ``seed`` seeds the retry jitter and is recorded.
    ``max_connection_failures`` consecutive failures to connect at all stop the run (the
    circuit breaker). ``limit`` keeps the first N items; ``sample`` a seeded sample of N
    items stratified by the task's first label (relation, category); both make a partial run.
    ``max_wait`` caps every single wait (a server's Retry-After, a rate limit); limits that
    would need longer waits are refused at start. An answer longer than ``max_answer_chars``
    is cut and its item recorded as failed, saying so.
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
    max_connection_failures: int = 8
    sample: int | None = None
    max_wait: float = 120.0
    max_answer_chars: int = 200_000

    def validate(self) -> None:
        """Raise ``UsageError`` naming the first option with an impossible value."""
        checks = [
            ("scoring", self.scoring in ("generate", "logprob"), "generate or logprob"),
            ("concurrency", self.concurrency >= 1, "at least 1"),
            ("max_retries", self.max_retries >= 0, "0 or more"),
            ("request_timeout", self.request_timeout > 0, "positive"),
            ("limit", self.limit is None or self.limit >= 0, "0 or more"),
            ("sample", self.sample is None or self.sample >= 1, "at least 1"),
            ("max_connection_failures", self.max_connection_failures >= 1, "at least 1"),
            ("max_wait", self.max_wait > 0 and not math.isinf(self.max_wait), "positive"),
            ("max_answer_chars", self.max_answer_chars >= 1, "at least 1"),
            (
                "requests_per_minute",
                _fits(self.requests_per_minute, self.max_wait),
                f"at least {60 / max(self.max_wait, 1e-9):g} (one request per max_wait "
                f"of {self.max_wait:g} s)",
            ),
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
            options.validate()
        except (TypeError, ValueError) as error:
            raise UsageError(f"bad run options: {error}") from None
        return options


def with_task_length(options: RunOptions, task: Task) -> RunOptions:
    """``options`` with the task's own generation length (``Task.max_new_tokens``).

    Used where the user set no ``max_new_tokens``: 32 tokens for an answer letter, 256 for a
    chain of thought, instead of one length for every setting.
    """
    params = dataclasses.replace(options.params, max_new_tokens=task.max_new_tokens)
    return dataclasses.replace(options, params=params)


def _fits(per_minute: float | None, max_wait: float) -> bool:
    """Whether one request fits in ``max_wait`` at ``per_minute`` (a bad rate is refused by
    its own check)."""
    if per_minute is None or not per_minute > 0 or not max_wait > 0:
        return True
    return 60 / per_minute <= max_wait


def _positive_or_none(value: float | None) -> bool:
    return value is None or (value > 0 and not math.isinf(value))


FLAT_RUN_OPTIONS = (
    "scoring",
    "max_new_tokens",
    "temperature",
    "top_logprobs",
    "seed",
    "concurrency",
    "requests_per_minute",
    "tokens_per_minute",
    "max_retries",
    "request_timeout",
    "use_cache",
    "refresh",
    "limit",
    "sample",
    "show_progress",
    "max_wait",
    "max_answer_chars",
)
"""The run options by the one name each has on the command line, in sweep files and here."""


def run_options_from(values: Mapping[str, Any], task: Task | None = None) -> RunOptions:
    """Return the ``RunOptions`` of flat option values (names in :data:`FLAT_RUN_OPTIONS`).

    Missing values take their defaults; with no ``max_new_tokens``, the task's own generation
    length is used (``Task.max_new_tokens``), else 512. Unknown names are ignored.
    """
    given = {k: values[k] for k in FLAT_RUN_OPTIONS if values.get(k) is not None}
    max_new = given.pop("max_new_tokens", None)
    if max_new is None:
        max_new = task.max_new_tokens if task is not None else GenerationParams().max_new_tokens
    params = GenerationParams(
        max_new_tokens=max_new,
        temperature=given.pop("temperature", 0.0),
        top_logprobs=given.pop("top_logprobs", 5),
        seed=given.get("seed"),
    )
    given["seed"] = given.get("seed") or 0
    return RunOptions(params=params, **given)
