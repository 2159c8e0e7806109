"""How a run is run: ``RunOptions`` (scoring mode, generation parameters, concurrency, limits,
retries, cache), with validation and a JSON round trip for the run folder's manifest. What a user
sets is declared once, in :class:`relreason.run.settings.RunSettings`; ``run_options_from``
turns those values into ``RunOptions``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from relreason.errors import UsageError
from relreason.run.settings import RunSettings
from relreason.types import GenerationParams, Task

TASK_OPTIONS = ("permute", "epochs")
"""Run settings that change the task (its items), not how it is run."""
FLAT_RUN_OPTIONS = tuple(name for name in RunSettings.model_fields if name not in TASK_OPTIONS)
"""The run options by the one name each has on the command line, in sweep files and here
(:class:`RunSettings`'s fields; ``permute`` and ``epochs`` change the task, not how it is
run)."""
_PARAMS = ("max_new_tokens", "temperature", "top_logprobs")  # held in ``RunOptions.params``
_SET = RunSettings()
"""The declared defaults: ``RunOptions`` takes each of its own from here."""


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
    is cut and its item recorded as failed, saying so. ``system_prompt`` (the text, never
    ``@FILE``) and ``fewshot_as_multiturn`` shape what chat models are sent
    (:mod:`relreason.run.chat`); ``max_cost`` (USD) and ``max_tokens_total`` stop a session
    cleanly at its budget (:mod:`relreason.run.budget`).
    """

    scoring: Literal["generate", "logprob"] = _SET.scoring
    params: GenerationParams = field(default_factory=GenerationParams)
    concurrency: int = _SET.concurrency
    requests_per_minute: float | None = _SET.requests_per_minute
    tokens_per_minute: float | None = _SET.tokens_per_minute
    max_retries: int = _SET.max_retries
    request_timeout: float = _SET.request_timeout
    use_cache: bool = _SET.use_cache
    refresh: bool = _SET.refresh
    cache_path: Path | None = None
    limit: int | None = _SET.limit
    show_progress: bool = _SET.show_progress
    seed: int = 0
    retry_initial_wait: float = 0.5
    retry_max_wait: float = 30.0
    second_stage_max_new_tokens: int = 32
    max_connection_failures: int = 8
    sample: int | None = _SET.sample
    log_to: str | None = _SET.log_to
    max_wait: float = _SET.max_wait
    max_answer_chars: int = _SET.max_answer_chars
    system_prompt: str | None = _SET.system_prompt
    fewshot_as_multiturn: bool = _SET.fewshot_as_multiturn
    max_cost: float | None = _SET.max_cost
    max_tokens_total: int | None = _SET.max_tokens_total

    def validate(self) -> None:
        """Raise ``UsageError`` naming the first option with an impossible value: checked by
        :class:`RunSettings` (the declaration the command line and sweep files check too), and
        ``max_connection_failures`` (the circuit breaker's, set in Python only) at least 1."""
        if self.log_to is not None:  # a tracker not installed is refused before the run
            from relreason.run.tracking import check_target

            check_target(self.log_to)
        values = {
            name: getattr(self.params if name in _PARAMS else self, name)
            for name in FLAT_RUN_OPTIONS
        }
        try:
            RunSettings.model_validate(values, strict=True)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            name = str(first["loc"][0])
            shown = f"params.{name}" if name in _PARAMS else name
            said = first["msg"][0].lower() + first["msg"][1:]
            raise UsageError(f"option {shown}: {said}, got {values[name]!r}") from None
        if type(self.max_connection_failures) is not int or self.max_connection_failures < 1:
            raise UsageError(
                "option max_connection_failures: input should be a whole number of at least 1, "
                f"got {self.max_connection_failures!r}"
            )
        if not _fits(self.requests_per_minute, self.max_wait):
            raise UsageError(
                f"option requests_per_minute must be at least {60 / self.max_wait:g} (one "
                f"request per max_wait of {self.max_wait:g} s), got {self.requests_per_minute!r}"
            )

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


def _fits(per_minute: float | None, max_wait: float) -> bool:
    """Whether one request fits in ``max_wait`` at ``per_minute`` (a bad rate is refused by
    its own check)."""
    if per_minute is None or not per_minute > 0 or not max_wait > 0:
        return True
    return 60 / per_minute <= max_wait


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
        temperature=given.pop("temperature", _SET.temperature),
        top_logprobs=given.pop("top_logprobs", _SET.top_logprobs),
        seed=given.get("seed"),
    )
    if isinstance(given.get("system_prompt"), str):
        given["system_prompt"] = read_system_prompt(given["system_prompt"])
    return RunOptions(params=params, **given)


def read_system_prompt(value: str) -> str:
    """The system prompt ``value`` gives: the text itself, or the contents of the file ``@FILE``
    names, its last line break dropped (``UsageError`` naming it when it cannot be read or is
    empty)."""
    if not value.startswith("@"):
        return value
    path = Path(value[1:]).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise UsageError(f"--system-prompt: cannot read {path}: {reason}") from None
    if not text.strip():
        raise UsageError(f"--system-prompt: {path} is empty")
    return text.removesuffix("\n").removesuffix("\r")


def override_options(options: RunOptions, override: Mapping[str, Any] | None) -> RunOptions:
    """Return ``options`` with the fields ``override`` names replaced and validated again
    (``UsageError`` for an unknown field or a bad value)."""
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
