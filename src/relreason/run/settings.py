"""The run options a user sets, declared once: ``RunSettings``.

Each field is one option by the one name it has everywhere: its type, default, bounds and
help. The command line's run options (``relreason run NAME``), a sweep file's ``options``
(:data:`SweepOptions`, generated from the fields marked for sweeps), the keywords of
``relreason.evaluate``, the defaults of the runner's ``RunOptions`` and the checks of
``RunOptions.validate`` all come from it; ``run_options_from`` turns the values into
``RunOptions``. The generation defaults (temperature, alternatives) are a request's own
(``GenerationParams``), the time-out and the answer cap a backend's.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from relreason.declare import Cli
from relreason.models.base import ModelBackend
from relreason.models.options import DEFAULT_TIMEOUT
from relreason.types import GenerationParams

_REQUEST = GenerationParams()
"""A request's defaults: the run's own temperature and alternatives unless a user sets them."""


class RunSettings(BaseModel):
    """How to run, as a user says it (``RunOptions`` is what the runner is given)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scoring: Annotated[
        Literal["generate", "logprob"],
        Cli(flags=("--scoring",)),
        Field(
            description="generate: the model writes its answer and it is read from the text "
            "(as in the papers); logprob: the log-likelihood of each choice letter after the "
            "prompt."
        ),
    ] = "generate"
    max_new_tokens: Annotated[
        int | None,
        Field(ge=1, description="Default: the setting's own (32, or 256 for CoT)."),
    ] = None
    temperature: Annotated[
        float,
        Field(
            ge=0,
            allow_inf_nan=False,
            description="Sampling temperature (0: greedy, as in the papers).",
        ),
    ] = _REQUEST.temperature
    top_logprobs: Annotated[
        int,
        Field(
            ge=0, le=20, description="Alternatives kept for the first generated token (in records)."
        ),
    ] = _REQUEST.top_logprobs
    concurrency: Annotated[
        int, Field(ge=1, description="Requests (or local batches) in flight at once.")
    ] = 8
    requests_per_minute: Annotated[
        float | None,
        Cli(flags=("--rpm", "--requests-per-minute")),
        Field(gt=0, allow_inf_nan=False, description="Requests per minute."),
    ] = None
    tokens_per_minute: Annotated[
        float | None,
        Cli(flags=("--tpm", "--tokens-per-minute")),
        Field(gt=0, allow_inf_nan=False, description="Tokens per minute."),
    ] = None
    max_retries: Annotated[
        int,
        Field(
            ge=0,
            description="Retries of a request that failed transiently (429, 5xx, time-out), "
            "with backoff; then the item is recorded as failed.",
        ),
    ] = 6
    request_timeout: Annotated[
        float,
        Field(
            ge=0.1,
            allow_inf_nan=False,
            description="Seconds before one API request is abandoned (and retried).",
        ),
    ] = DEFAULT_TIMEOUT
    max_wait: Annotated[
        float,
        Field(
            ge=0.1,
            allow_inf_nan=False,
            description="Longest single wait in s (Retry-After, rate limits).",
        ),
    ] = 120.0
    max_answer_chars: Annotated[
        int,
        Field(ge=1, description="Longer answers are cut and their item recorded as failed."),
    ] = ModelBackend.max_answer_chars
    system_prompt: Annotated[
        str | None,
        Cli(flags=("--system-prompt",)),
        Field(
            description="A system message for chat models (openai: chat API, anthropic:, and "
            "hf:/gguf:/vllm:/smollm2 with --chat-template): the text, or @FILE to read it "
            "from a file. Recorded in the manifest; a resume keeps it."
        ),
    ] = None
    fewshot_as_multiturn: Annotated[
        bool,
        Cli(flags=("--fewshot-as-multiturn",)),
        Field(
            description="Send a few-shot prompt to a chat model as a conversation: each "
            "exemplar a user turn and an assistant turn, the question last (zero-shot prompts "
            "go as they are)."
        ),
    ] = False
    max_cost: Annotated[
        float | None,
        Cli(flags=("--max-cost",)),
        Field(
            gt=0,
            allow_inf_nan=False,
            description="Stop cleanly once this session's requests cost about this many USD "
            "(priced from the token usage the API reports; RELREASON_PRICES); resume to go on "
            "(a resume may spend as much again).",
        ),
    ] = None
    max_tokens_total: Annotated[
        int | None,
        Cli(flags=("--max-tokens-total",)),
        Field(
            ge=1,
            description="Stop cleanly once this session's requests used N tokens (prompt + "
            "completion, as reported); resume to go on.",
        ),
    ] = None
    log_to: Annotated[
        str | None,
        Cli(flags=("--log-to",)),
        Field(
            pattern=r"^(mlflow|wandb)(:.+)?$",
            description="Log the finished run (parameters, accuracy and its interval, counts "
            "by status, the run folder's files) to a tracker: mlflow (MLFLOW_TRACKING_URI, "
            "else ./mlruns), mlflow:URI (e.g. mlflow:file:///tmp/mlruns), wandb (offline "
            "unless WANDB_MODE says otherwise), wandb:PROJECT. Changes no result.",
        ),
    ] = None
    use_cache: Annotated[
        bool,
        Cli(flags=("--cache/--no-cache",)),
        Field(
            description="Reuse and store responses in the response cache "
            "($RELREASON_CACHE_DIR/cache.sqlite3)."
        ),
    ] = True
    refresh: Annotated[
        bool,
        Cli(flags=("--refresh",), sweep=False),
        Field(description="Ask the model again even when the cache has an answer (and store it)."),
    ] = False
    limit: Annotated[
        int | None, Cli(flags=("--limit",)), Field(ge=1, description="Only the first N items.")
    ] = None
    permute: Annotated[
        str | None,
        Cli(flags=("--permute",)),
        Field(
            description="Ask each item under several option orders (the gold follows its "
            "option): cyclic | reverse | all | N (N orders, the original and N-1 random ones)."
        ),
    ] = None
    epochs: Annotated[
        int,
        Cli(flags=("--epochs",)),
        Field(
            ge=1,
            description="Ask each item N times (epoch e under seed + e, cached apart), for "
            "sampling variance at temperature > 0; the summary adds accuracy per epoch, its "
            "standard deviation and the reducers mean, majority, pass@k and at-least-one.",
        ),
    ] = 1
    sample: Annotated[
        int | None,
        Cli(flags=("--sample",)),
        Field(
            ge=1,
            description="A seeded sample of N items, stratified by relation/category (partial "
            "run).",
        ),
    ] = None
    seed: Annotated[
        int | None,
        Cli(default=0),
        Field(description="Seed of the retry jitter and of sampling, where a backend takes one."),
    ] = None
    show_progress: Annotated[
        bool,
        Cli(flags=("--progress/--no-progress",), default=True, sweep=False),
        Field(description="Show a progress display."),
    ] = False
