"""Text from a server is untrusted: the one place that makes it safe to record.

A JSON body may hold a lone surrogate (``"\\ud800"``): valid JSON, but not a character, so no
UTF-8 file (records, cache) can hold it. :func:`clean_response` replaces each by U+FFFD and says
so in ``Response.note``; :func:`clean_line` is the last line of defence of every record writer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from relreason.types import Response

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> tuple[str, int]:
    """Return ``text`` with every lone surrogate replaced by U+FFFD, and how many there were."""
    return _SURROGATE.subn(REPLACEMENT, text)


def clean_line(line: str) -> str:
    """Return ``line`` with every lone surrogate replaced (a no-op for valid text)."""
    return line if _SURROGATE.search(line) is None else clean_text(line)[0]


def _clean_map(values: Mapping[str, float]) -> tuple[dict[str, float], int]:
    cleaned: dict[str, float] = {}
    count = 0
    for key, value in values.items():
        new, n = clean_text(key)
        count += n
        cleaned[new] = max(value, cleaned.get(new, value))
    return cleaned, count


def clean_response(response: Response) -> Response:
    """Return ``response`` with lone surrogates replaced in its text, its top-logprob tokens and
    its served model; ``note`` then says how many code points were replaced. A response with
    none is returned as it is (the common case costs one regex search per field)."""
    found = 0
    text = response.text
    if text is not None and _SURROGATE.search(text):
        text, found = clean_text(text)
    top = response.top_logprobs
    if top is not None and any(_SURROGATE.search(k) for p in top for k in p):
        pairs = [_clean_map(p) for p in top]
        top = tuple(p for p, _ in pairs)
        found += sum(n for _, n in pairs)
    served = response.served_model
    if served is not None and _SURROGATE.search(served):
        served, n = clean_text(served)
        found += n
    if not found:
        return response
    note = f"{found} invalid code point(s) (lone surrogates) in the response replaced by U+FFFD"
    return dataclasses.replace(
        response, text=text, top_logprobs=top, served_model=served, note=note
    )
