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


def tokenizer_counter(
    spec: str, tokenizer: str | Path | None = None
) -> tuple[Callable[[str], int], str]:
    """Return a token counting function and its name.

    Uses ``transformers.AutoTokenizer`` from a local folder (``tokenizer``, or the path of an
    ``hf:PATH`` spec) when there is one, else ``len(text) / 4`` (named ``"chars/4"``).
    """
    path = Path(tokenizer) if tokenizer else None
    if path is None and spec.startswith("hf:"):
        path = Path(spec[3:])
    if path is None or not path.is_dir():
        return chars_per_token_estimate, "chars/4"
    try:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except Exception:  # no transformers, or not a tokenizer folder: fall back to the estimate
        return chars_per_token_estimate, "chars/4"

    def count(text: str) -> int:
        return len(tok(text, add_special_tokens=False)["input_ids"])

    return count, str(path)


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
        return (
            f"dry run: {self.task} on {self.model}: {self.requests} requests, "
            f"~{self.input_tokens} input tokens ({self.tokenizer}), "
            f"<= {self.output_tokens} output tokens, estimated cost {cost}"
        )


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
    generate = options.scoring == "generate"
    max_new = options.params.max_new_tokens
    requests = input_tokens = output_tokens = 0
    for item in items:
        prompt_tokens = count(item.prompt)
        requests += 1
        input_tokens += prompt_tokens
        output_tokens += max_new if generate else 1
        if generate and task.second_stage is not None:
            second = task.second_stage(item, "")
            requests += 1
            input_tokens += count(second) + max_new
            output_tokens += options.second_stage_max_new_tokens
    return DryRunReport(
        task=task.name,
        model=backend_spec,
        requests=requests,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        tokenizer=tokenizer_name,
        cost_usd=estimate_cost(backend_spec, input_tokens, output_tokens, prices),
    )
