"""A session's spending limit: ``--max-cost`` (USD, priced from the token usage the model
reports, by :mod:`relreason.run.cost`'s price table) and ``--max-tokens-total`` (prompt +
completion tokens). Once either is reached no new request starts; requests in flight finish
and are recorded, so a run may go over by up to ``--concurrency`` requests. The run then
stops as an interrupted one does (exit 130) and can be resumed, which spends up to the budget
again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from relreason.errors import InterruptedRunError, UsageError
from relreason.run.cost import Price, price_for
from relreason.run.options import RunOptions
from relreason.types import Usage


class BudgetReachedError(InterruptedRunError):
    """The session spent its ``--max-cost`` or ``--max-tokens-total`` (exit 130, resumable)."""


class Budget:
    """What one session may spend, and what it has spent so far."""

    def __init__(self, max_cost: float | None, max_tokens: int | None, price: Price) -> None:
        self.max_cost = max_cost
        self.max_tokens = max_tokens
        self.price = price
        self.prompt_tokens = 0
        self.completion_tokens = 0

    @property
    def cost(self) -> float:
        """USD spent so far."""
        return self.price.cost(self.prompt_tokens, self.completion_tokens)

    @property
    def tokens(self) -> int:
        """Tokens used so far (prompt + completion)."""
        return self.prompt_tokens + self.completion_tokens

    def spend(self, usages: Iterable[Usage]) -> None:
        """Count the usage of responses just received."""
        for usage in usages:
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens

    def reached(self) -> str | None:
        """Why no further request may start (None while there is budget left)."""
        if self.max_cost is not None and self.cost >= self.max_cost:
            return f"--max-cost {self.max_cost:g} reached (spent ~${self.cost:.4f})"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"--max-tokens-total {self.max_tokens} reached ({self.tokens} tokens)"
        return None

    def check(self) -> None:
        """Raise :class:`BudgetReachedError` once the budget is spent."""
        why = self.reached()
        if why is not None:
            raise BudgetReachedError(why)


def budget_for(
    spec: str, options: RunOptions, prices: Mapping[str, Price] | None = None
) -> Budget | None:
    """The session budget ``options`` set for ``spec`` (None without one). ``UsageError`` for
    ``--max-cost`` on an API model the price table does not know."""
    if options.max_cost is None and options.max_tokens_total is None:
        return None
    price = price_for(spec, prices)
    if price is None:
        if options.max_cost is not None:
            raise UsageError(
                f"--max-cost needs the price of {spec}, which the price table lacks: add it "
                "in a price file (RELREASON_PRICES or --prices), or use --max-tokens-total"
            )
        price = Price(0.0, 0.0)
    return Budget(options.max_cost, options.max_tokens_total, price)
