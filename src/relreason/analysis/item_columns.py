"""A run's records as the columns of ``Runs.items``: the fields taken in one pass, usage split
into token counts, the official (second) reading, the labels as ``label_<name>`` columns, and
each column's type (numbers as numbers, text as Python objects)."""

from __future__ import annotations

from collections.abc import Mapping
from operator import itemgetter
from typing import Any

import pandas as pd

ITEM_FIELDS = (
    "index",
    "item_id",
    "gold",
    "answer",
    "status",
    "correct",
    "read_method",
    "output",
    "second_output",
    "error",
    "prompt_text",
    "reader",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "attempts",
    "cached",
    "choice_logprobs",
    "top_logprobs",
    "sent_as",
    "served_model",
    "answer_official",
    "status_official",
    "correct_official",
)
"""The columns of ``Runs.items`` besides ``run_id`` and the ``label_<name>`` columns."""
_OFFICIAL_NESTS = ("alt", "official", "official_reading", "reading_official")


def official_reading(record: Mapping[str, Any]) -> dict[str, Any]:
    """Return the official reading of a record: ``answer_official``, ``status_official``,
    ``correct_official`` (None when the record holds none).

    relreason records hold the second reading under ``alt`` (``reader`` names the record's own
    rule, ``alt.reader`` the other: sound vs official for ConvRe, robust vs paper for MCR); the
    second reading is taken as the official one. Also accepted: top-level
    ``answer_official``/``status_official``/``correct_official`` fields, or a nested object
    under ``official``, ``official_reading`` or ``reading_official`` with
    ``answer``/``status``/``correct``.
    """
    out: dict[str, Any] = {
        k: record.get(k) for k in ("answer_official", "status_official", "correct_official")
    }
    for name in _OFFICIAL_NESTS:
        nested = record.get(name)
        if isinstance(nested, Mapping):
            for key in ("answer", "status", "correct"):
                if out[f"{key}_official"] is None:
                    out[f"{key}_official"] = nested.get(key)
    if out["correct_official"] is None and out["status_official"] is not None:
        out["correct_official"] = out["status_official"] == "correct"
    return out


_NUMERIC = ("index", "prompt_tokens", "completion_tokens", "latency_s", "attempts")


def series(name: str, values: list[Any]) -> pd.Series:
    """A column of the items frame: numbers and flags as numbers, text and nested values as
    Python objects (no string inference: quicker to build and to split by run)."""
    if name in _NUMERIC or name == "correct":
        return pd.Series(values)
    if all(v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in values):
        return pd.Series(values, dtype=float if None in values else None)
    return pd.Series(values, dtype=object)


_TAKEN = (
    *("index", "item_id", "gold", "answer", "status", "output", "second_output", "error"),
    *("method", "prompt", "reader", "usage", "latency_s", "attempts", "cached"),
    *("choice_logprobs", "top_logprobs", "sent_as", "served_model", "alt", "labels"),
)
_TAKE = itemgetter(*_TAKEN)
_OFFICIAL_KEYS = ("answer_official", "status_official", "correct_official", *_OFFICIAL_NESTS[1:])


def _fields(record: Mapping[str, Any]) -> tuple[Any, ...]:
    try:
        return _TAKE(record)  # type: ignore[no-any-return]
    except KeyError:  # a record written before a field existed
        return tuple(record.get(name) for name in _TAKEN)


def add_items(
    columns: dict[str, list[Any]], labels: dict[str, list[Any]], run_id: str, records: list[Any]
) -> None:
    """Append one run's records to the item columns (and label columns, padded with None)."""
    start = len(columns["run_id"])
    columns["run_id"] += [run_id] * len(records)
    if not records:
        return
    taken = dict(zip(_TAKEN, zip(*map(_fields, records), strict=True), strict=True))
    for name in ("index", "item_id", "gold", "answer", "status", "output", "second_output"):
        columns[name] += taken[name]
    for name in ("error", "reader", "latency_s", "attempts", "cached", "choice_logprobs"):
        columns[name] += taken[name]
    for name in ("top_logprobs", "sent_as", "served_model"):
        columns[name] += taken[name]
    columns["correct"] += [status == "correct" for status in taken["status"]]
    columns["read_method"] += taken["method"]
    columns["prompt_text"] += taken["prompt"]
    usages = [u or {} for u in taken["usage"]]
    columns["prompt_tokens"] += [u.get("prompt_tokens") for u in usages]
    columns["completion_tokens"] += [u.get("completion_tokens") for u in usages]
    plain = not any(key in record for record in records for key in _OFFICIAL_KEYS)
    for name, key in (("answer_official", "answer"), ("status_official", "status")):
        if plain:
            columns[name] += [a.get(key) if isinstance(a, dict) else None for a in taken["alt"]]
        else:
            columns[name] += [official_reading(r)[name] for r in records]
    if plain:
        columns["correct_official"] += [
            _alt_correct(a) if isinstance(a, dict) else None for a in taken["alt"]
        ]
    else:
        columns["correct_official"] += [official_reading(r)["correct_official"] for r in records]
    for number, found in enumerate(taken["labels"]):
        for name, value in (found or {}).items():
            column = labels.setdefault(f"label_{name}", [])
            column += [None] * (start + number - len(column))
            column.append(list(value) if isinstance(value, list | tuple) else value)


def _alt_correct(alt: Mapping[str, Any]) -> Any:
    correct = alt.get("correct")
    if correct is None and alt.get("status") is not None:
        return alt.get("status") == "correct"
    return correct
