"""A run's records as the columns of ``Runs.items``: the fields taken in one pass, usage split
into token counts, the official (second) reading, the labels as ``label_<name>`` columns, and
each column's type (numbers as numbers, text as Python objects)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

import pandas as pd

from relreason.records.record import Record

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


def official_reading(record: Record) -> dict[str, Any]:
    """Return the official reading of a record: ``answer_official``, ``status_official``,
    ``correct_official`` (None when the record holds none).

    relreason records hold the second reading under ``alt`` (``reader`` names the record's own
    rule, ``alt.reader`` the other: sound vs official for ConvRe, robust vs paper for MCR); the
    second reading is taken as the official one.
    """
    alt = record.alt if isinstance(record.alt, Mapping) else None
    return {
        "answer_official": alt.get("answer") if alt else None,
        "status_official": alt.get("status") if alt else None,
        "correct_official": _alt_correct(alt) if alt else None,
    }


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
_TAKE = attrgetter(*_TAKEN)


def add_items(
    columns: dict[str, list[Any]],
    labels: dict[str, list[Any]],
    run_id: str,
    records: Sequence[Record],
) -> None:
    """Append one run's records to the item columns (and label columns, padded with None)."""
    start = len(columns["run_id"])
    columns["run_id"] += [run_id] * len(records)
    if not records:
        return
    taken = dict(zip(_TAKEN, zip(*map(_TAKE, records), strict=True), strict=True))
    for name in ("index", "item_id", "gold", "answer", "status", "output", "second_output"):
        columns[name] += taken[name]
    for name in ("error", "reader", "latency_s", "attempts", "cached", "choice_logprobs"):
        columns[name] += taken[name]
    for name in ("top_logprobs", "sent_as", "served_model"):
        columns[name] += taken[name]
    columns["correct"] += [status == "correct" for status in taken["status"]]
    columns["read_method"] += taken["method"]
    columns["prompt_text"] += taken["prompt"]
    columns["prompt_tokens"] += [u.get("prompt_tokens") for u in taken["usage"]]
    columns["completion_tokens"] += [u.get("completion_tokens") for u in taken["usage"]]
    alts = [a if isinstance(a, Mapping) else None for a in taken["alt"]]
    columns["answer_official"] += [a.get("answer") if a else None for a in alts]
    columns["status_official"] += [a.get("status") if a else None for a in alts]
    columns["correct_official"] += [_alt_correct(a) if a else None for a in alts]
    for number, found in enumerate(taken["labels"]):
        for name, value in found.items():
            column = labels.setdefault(f"label_{name}", [])
            column += [None] * (start + number - len(column))
            column.append(list(value) if isinstance(value, list | tuple) else value)


def _alt_correct(alt: Mapping[str, Any]) -> Any:
    correct = alt.get("correct")
    if correct is None and alt.get("status") is not None:
        return alt.get("status") == "correct"
    return correct
