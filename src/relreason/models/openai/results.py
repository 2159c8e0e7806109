"""Reading the ``openai`` SDK's parsed results: the first choice, token usage, and the top
log-probabilities of chat and completions responses as ``{token: logprob}`` per position."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from relreason.models.errors_map import UnreadableResponseError
from relreason.types import Usage

LOGPROB_POSITIONS = 16
"""How many generated positions keep their top alternatives in ``Response.top_logprobs``."""

Api = Literal["chat", "completions"]


def finite(value: Any) -> float | None:
    """Return ``value`` as a float when it is a finite number, else None."""
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _sorted_top(pairs: Sequence[tuple[Any, Any]]) -> dict[str, float]:
    """Token -> log-probability, highest first (the best value kept for a repeated token)."""
    best: dict[str, float] = {}
    for token, logprob in pairs:
        value = finite(logprob)
        if isinstance(token, str) and value is not None and value > best.get(token, -math.inf):
            best[token] = min(value, 0.0)
    return dict(sorted(best.items(), key=lambda kv: kv[1], reverse=True))


def chat_top_logprobs(choice: Any) -> tuple[dict[str, float], ...] | None:
    """Return a chat choice's top alternatives per generated position (the first
    ``LOGPROB_POSITIONS``), or None when it carries no logprobs."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    positions = []
    for entry in content[:LOGPROB_POSITIONS]:
        alternatives = getattr(entry, "top_logprobs", None) or []
        pairs = [(getattr(a, "token", None), getattr(a, "logprob", None)) for a in alternatives]
        if not pairs:
            pairs = [(getattr(entry, "token", None), getattr(entry, "logprob", None))]
        positions.append(_sorted_top(pairs))
    return tuple(positions)


def completion_top_logprobs(choice: Any) -> tuple[dict[str, float], ...] | None:
    """Return a completions choice's top alternatives per generated position (the first
    ``LOGPROB_POSITIONS``), or None when it carries no logprobs."""
    logprobs = getattr(choice, "logprobs", None)
    tops = getattr(logprobs, "top_logprobs", None)
    if not tops:
        return None
    positions = []
    for entry in tops[:LOGPROB_POSITIONS]:
        positions.append(_sorted_top(list(entry.items())) if isinstance(entry, Mapping) else {})
    return tuple(positions)


def _count(value: Any) -> int:
    """A token count as the server reported it; 0 for anything that is not a count."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, float) and math.isfinite(value) and value >= 0:
        return int(value)
    return 0


def read_usage(result: Any) -> Usage:
    """Return a result's token usage (zero for what the server did not report, or reported
    as something other than a count: usage is bookkeeping, never worth failing an answer)."""
    usage = getattr(result, "usage", None)
    return Usage(
        prompt_tokens=_count(getattr(usage, "prompt_tokens", 0)),
        completion_tokens=_count(getattr(usage, "completion_tokens", 0)),
    )


def choice_text(choice: Any, api: Api) -> str:
    """Return a choice's generated text ("" when the server sent none).

    Raises ``UnreadableResponseError`` naming the field when it holds something other than
    text (a number, an object): such an answer is never read as if it were one.
    """
    field = "message.content" if api == "chat" else "text"
    holder = getattr(choice, "message", None) if api == "chat" else choice
    value = getattr(holder, field.rsplit(".", 1)[-1], None)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UnreadableResponseError(
            f"the response's choices[0].{field} is {type(value).__name__}, not a string"
        )
    return value


def first_choice(result: Any) -> Any:
    """Return a result's first choice; raises ``UnreadableResponseError`` when it has none."""
    choices = getattr(result, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise UnreadableResponseError("the response has no choices")
    return choices[0]
