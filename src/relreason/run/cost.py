"""Prices, token estimates and the dry run (what a run would send and cost, sending nothing).

Prices are USD per million input / output tokens, by model name; a spec's model name matches the
longest table name it starts with (``gpt-4o-2024-08-06`` uses ``gpt-4o``). Local models and
baselines cost nothing. Users extend or override the table with a YAML or JSON file
(``RELREASON_PRICES`` or an explicit path) mapping a model name to ``{input: ..., output: ...}``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from relreason.errors import DataError, UsageError

if TYPE_CHECKING:
    from relreason.run.options import RunOptions
    from relreason.types import Task

PRICES_ENV = "RELREASON_PRICES"


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """Return the USD cost of the given token counts."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


DEFAULT_PRICES: dict[str, Price] = {
    # OpenAI (list prices, USD / 1M tokens)
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4-turbo": Price(10.00, 30.00),
    "gpt-4": Price(30.00, 60.00),
    "gpt-3.5-turbo-instruct": Price(1.50, 2.00),
    "gpt-3.5-turbo": Price(0.50, 1.50),
    "o1-mini": Price(1.10, 4.40),
    "o1": Price(15.00, 60.00),
    "o3-mini": Price(1.10, 4.40),
    "davinci-002": Price(2.00, 2.00),
    "babbage-002": Price(0.40, 0.40),
    # Anthropic
    "claude-3-5-haiku": Price(0.80, 4.00),
    "claude-3-5-sonnet": Price(3.00, 15.00),
    "claude-3-7-sonnet": Price(3.00, 15.00),
    "claude-3-haiku": Price(0.25, 1.25),
    "claude-3-opus": Price(15.00, 75.00),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-opus-4": Price(15.00, 75.00),
}


def _load_price_file(path: Path) -> dict[str, Price]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read the price file {path}: {error.strerror or error}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise DataError(str(path), f"not valid JSON/YAML ({error})") from None
    if not isinstance(data, dict):
        raise DataError(str(path), "expected a mapping of model name to {input, output}")
    prices: dict[str, Price] = {}
    for name, entry in data.items():
        if not isinstance(entry, dict):
            raise DataError(str(path), "expected {input: ..., output: ...}", item=str(name))
        values = []
        for key in ("input", "output"):
            value = entry.get(key)
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                message = "expected a non-negative number (USD per 1M tokens)"
                raise DataError(str(path), message, item=str(name), field=key)
            values.append(float(value))
        prices[str(name)] = Price(values[0], values[1])
    return prices


def load_prices(path: Path | None = None) -> dict[str, Price]:
    """Return the price table: defaults, then ``$RELREASON_PRICES``, then ``path`` (later wins).

    Raises ``UsageError`` for an unreadable file, ``DataError`` naming the file, model and field
    for a malformed one.
    """
    prices = dict(DEFAULT_PRICES)
    env = os.environ.get(PRICES_ENV)
    for source in (Path(env) if env else None, path):
        if source is not None:
            prices.update(_load_price_file(Path(source)))
    return prices


def price_for(spec: str, prices: Mapping[str, Price] | None = None) -> Price | None:
    """Return the price of a model spec: zero for local models and baselines, the longest
    matching table entry for API models, None when unknown."""
    table = DEFAULT_PRICES if prices is None else prices
    from relreason.models.registry import is_free

    _, _, name = spec.partition(":")
    if is_free(spec):
        return Price(0.0, 0.0)
    name = name or spec
    if name in table:
        return table[name]
    matches = [key for key in table if name.startswith(key)]
    return table[max(matches, key=len)] if matches else None


def estimate_cost(
    spec: str, prompt_tokens: int, completion_tokens: int, prices: Mapping[str, Price] | None = None
) -> float | None:
    """Return the estimated USD cost of the token counts for ``spec``, or None if unpriced."""
    price = price_for(spec, prices)
    return None if price is None else price.cost(prompt_tokens, completion_tokens)


def chars_per_token_estimate(text: str) -> int:
    """Return the rough token count ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / 4)


FALLBACK_NAME = "chars/4: a rough estimate, no tokenizer at hand"
"""How a dry run names its count when no tokenizer of the model could be loaded (far too low
for Chinese, Japanese and Korean prompts)."""

Counter = Callable[[str], int]


def _hf_counter(source: str | Path, **kwargs: Any) -> Counter | None:
    """A counter from a transformers tokenizer already on this machine (never downloads)."""
    try:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(str(source), local_files_only=True, **kwargs)
    except Exception:  # no transformers, or no tokenizer there: the caller falls back
        return None

    def count(text: str) -> int:
        return len(tok(text, add_special_tokens=False)["input_ids"])

    return count


def _tiktoken_counter(model: str) -> tuple[Counter, str] | None:
    """A counter from ``tiktoken`` for an OpenAI model name (None: not installed, unknown
    model, or its encoding cannot be fetched)."""
    try:
        import tiktoken

        try:
            encoding = tiktoken.encoding_for_model(model)
        except KeyError:  # a model tiktoken does not know: the current OpenAI encoding
            encoding = tiktoken.get_encoding("o200k_base")
        encoding.encode("warm-up")  # fetches the encoding file once (cached by tiktoken)
    except Exception:
        return None

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return count, f"tiktoken {encoding.name}"


def _smollm2_counter() -> tuple[Counter, str] | None:
    """The bundled model's own tokenizer: from its converted folder, else from its GGUF file."""
    from relreason.models import smollm2
    from relreason.paths import cache_root

    folder = cache_root() / "models" / smollm2.FOLDER_NAME
    if (folder / "tokenizer.json").is_file():
        count = _hf_counter(folder)
        if count is not None:
            return count, "SmolLM2 tokenizer"
    try:
        gguf = smollm2.gguf_path()
    except Exception:
        return None
    count = _hf_counter(gguf.parent, gguf_file=gguf.name)
    return (count, "SmolLM2 tokenizer") if count is not None else None


def tokenizer_counter(
    spec: str, tokenizer: str | Path | None = None
) -> tuple[Callable[[str], int], str]:
    """Return a token counting function and its name: the model's own tokenizer when at hand.

    ``tokenizer`` (a local folder) wins; else ``hf:PATH_OR_NAME`` uses its transformers
    tokenizer (a folder, or a name already in the Hugging Face cache), ``smollm2`` the bundled
    model's, ``openai:MODEL`` tiktoken's encoding of the model (when tiktoken is installed).
    Otherwise ``len(text) / 4``, named :data:`FALLBACK_NAME`.
    """
    kind, _, name = spec.partition(":")
    found: tuple[Counter, str] | None = None
    if tokenizer:
        count = _hf_counter(Path(tokenizer)) if Path(tokenizer).is_dir() else None
        found = (count, str(tokenizer)) if count is not None else None
    elif kind == "hf" and name:
        count = _hf_counter(name)
        found = (count, name) if count is not None else None
    elif kind == "smollm2":
        found = _smollm2_counter()
    elif kind == "openai" and name:
        found = _tiktoken_counter(name)
    return found if found is not None else (chars_per_token_estimate, FALLBACK_NAME)


def fallback_reason(spec: str, tokenizer: str | Path | None = None) -> str:
    """Why :func:`tokenizer_counter` fell back to chars/4 for ``spec``, in a few words."""
    kind, _, name = spec.partition(":")
    if tokenizer:
        return f"no tokenizer could be loaded from {tokenizer}"
    if kind == "hf" and name:
        return f"no tokenizer of {name} on this machine (a dry run downloads none)"
    if kind == "smollm2":
        return "the bundled model's tokenizer is not downloaded yet"
    if kind == "openai" and name:
        try:
            import tiktoken  # noqa: F401
        except ImportError:
            return "tiktoken is not installed (the openai extra has it)"
        return (
            f"tiktoken could not load the encoding of {name} (it fetches it from the internet "
            "once: offline?)"
        )
    return f"no tokenizer of {kind or spec} models here"


CJK_NOTE = (
    "Chinese, Japanese and Korean text is undercounted (about one token per character, not "
    "per four)"
)


@dataclass(frozen=True)
class DryRunReport:
    """What a run would send: requests, token estimates, cost (None when the model is unpriced)."""

    task: str
    model: str
    requests: int
    input_tokens: int
    output_tokens: int
    tokenizer: str
    cost_usd: float | None
    approximate: str | None = None
    """Why the token counts are chars/4 approximations (None: the model's own tokenizer)."""
    items: int = 0
    stops_after: int | None = None
    """After about how many items ``--max-cost``/``--max-tokens-total`` would stop the run, by
    these estimates (None: it would not stop)."""

    def to_json(self) -> dict[str, Any]:
        """Return the report as a JSON-ready dict."""
        return dict(self.__dict__)

    def __str__(self) -> str:
        return self.format()

    def format(self) -> str:
        """Return the report as one human-readable paragraph."""
        cost = (
            "unknown (no price for this model)"
            if self.cost_usd is None
            else f"${self.cost_usd:.4f}"
        )
        text = (
            f"dry run: {self.task} on {self.model}: {self.requests} requests, "
            f"~{self.input_tokens} input tokens ({self.tokenizer}), "
            f"<= {self.output_tokens} output tokens, estimated cost {cost}"
        )
        if self.stops_after is not None:
            text += (
                f"\n  budget: the run would stop after about {self.stops_after} of "
                f"{self.items} items (output tokens at their bound: it may go further)"
            )
        if self.approximate:
            text += f"\n  note: token counts are approximate: {self.approximate}"
        return text


def dry_run(
    task: Task,
    backend_spec: str,
    options: RunOptions,
    *,
    prices_file: Path | None = None,
    tokenizer: str | Path | None = None,
) -> DryRunReport:
    """Return what running ``task`` on ``backend_spec`` with ``options`` would send and cost.

    Output tokens are an upper bound: ``max_new_tokens`` per generate request (32 for a second
    stage), 1 per logprob request. Raises ``UsageError``/``DataError`` for a bad price file.
    """
    prices = load_prices(prices_file)
    count, tokenizer_name = tokenizer_counter(backend_spec, tokenizer)
    from relreason.run.selection import select_items

    items = select_items(task, options)
    approximate = None
    if tokenizer_name == FALLBACK_NAME:
        from relreason.scoring.common import is_cjk

        approximate = fallback_reason(backend_spec, tokenizer)
        if any(is_cjk(ch) for item in items for ch in item.prompt):
            approximate += f"; {CJK_NOTE}"
    generate = options.scoring == "generate"
    max_new = options.params.max_new_tokens
    system = count(options.system_prompt) if options.system_prompt else 0
    price = price_for(backend_spec, prices) or Price(0.0, 0.0)
    requests = input_tokens = output_tokens = 0
    stops_after: int | None = None
    for n, item in enumerate(items, 1):
        prompt_tokens = count(item.prompt) + system
        requests += 1
        input_tokens += prompt_tokens
        output_tokens += max_new if generate else 1
        if generate and task.second_stage is not None:
            second = task.second_stage(item, "")
            requests += 1
            input_tokens += count(second) + max_new + system
            output_tokens += options.second_stage_max_new_tokens
        if stops_after is None and _spent(options, price, input_tokens, output_tokens):
            stops_after = n if n < len(items) else None
    return DryRunReport(
        task=task.name,
        model=backend_spec,
        requests=requests,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        tokenizer=tokenizer_name,
        cost_usd=estimate_cost(backend_spec, input_tokens, output_tokens, prices),
        approximate=approximate,
        items=len(items),
        stops_after=stops_after,
    )


def _spent(options: RunOptions, price: Price, input_tokens: int, output_tokens: int) -> bool:
    """Whether these token counts reach the budget (``--max-cost``, ``--max-tokens-total``)."""
    if options.max_cost is not None and price.cost(input_tokens, output_tokens) >= options.max_cost:
        return True
    total = options.max_tokens_total
    return total is not None and input_tokens + output_tokens >= total
