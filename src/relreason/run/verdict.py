"""The verdict a summary opens with when a run has no number worth reading: every item failed,
or no output could be read as an answer; with the likely cause and the option that fixes it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from relreason.records import RunSummary
from relreason.run.options import RunOptions

_SERVER_ERROR = re.compile(r"HTTP 5\d\d")


def verdict(
    summary: RunSummary, backend: Mapping[str, Any] | None, options: RunOptions | None
) -> str | None:
    """One line when all items failed or none was read as an answer, else None.

    ``backend`` is the backend's ``describe()`` and ``options`` the run's options (None for
    outputs read with ``score``): they say which cause is likely."""
    n = summary.n
    failed = summary.failed
    readable = summary.statuses.get("correct", 0) + summary.statuses.get("wrong", 0)
    asked_logprobs = (
        options is not None and options.scoring == "generate" and options.params.top_logprobs > 0
    )
    if n and failed == n:
        line = f"no item was answered: all {n} failed"
        if asked_logprobs and _SERVER_ERROR.search(summary.most_common_error or ""):
            line += (
                "; the server may refuse log-probabilities (llama.cpp's server without "
                "logits_all answers HTTP 500 to them): try --top-logprobs 0"
            )
        return line
    if n and readable == 0:
        line = f"no readable answer: none of the {n - failed} output(s) could be read as an answer"
        chat = backend is not None and backend.get("backend") == "openai"
        if chat and backend is not None and backend.get("api") == "chat":
            line += (
                "; a base (not instruction-tuned) model behind a chat API rarely answers: if "
                "this is one, use --api completions"
            )
        else:
            line += "; see the outputs in records.jsonl"
        return line
    return None
