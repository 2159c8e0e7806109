"""A run's records as the columns of ``Runs.items``: the fields taken in one pass, usage split
into token counts, the official and the sound reading (whichever scored the record), the labels
as ``label_<name>`` columns, and each column's type (numbers as numbers, text as Python objects)."""

from __future__ import annotations

from collections.abc import Sequence
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
    "reader_official",
    "answer_sound",
    "status_sound",
    "correct_sound",
    "reader_sound",
)
"""The columns of ``Runs.items`` besides ``run_id`` and the ``label_<name>`` columns."""

READING_COLUMNS = ITEM_FIELDS[ITEM_FIELDS.index("answer_official") :]
"""The columns of the two readings by what they are (see :func:`two_readings`)."""


def is_official_reader(name: Any) -> bool:
    """Whether a reader name is an official (paper) rule: ``official:FAMILY`` (ConvRe) or
    ``paper`` (MCR, also with its options: ``paper (few_shot=True)``)."""
    return isinstance(name, str) and (name.startswith("official") or name.startswith("paper"))


_NONE4 = (None, None, None, None)


def _readings(record: Record) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(official, sound) readings of a record as (answer, status, correct, reader)."""
    alt = record.alt
    if alt is None:
        return _NONE4, _NONE4
    other = (alt.answer, alt.status, alt.correct, alt.reader)
    own = (record.answer, record.status, record.status == "correct", record.reader)
    return (own, other) if is_official_reader(record.reader) else (other, own)


def two_readings(record: Record) -> dict[str, Any]:
    """Return a record's two readings by what they are, whichever one scored it: the
    official rule's (``answer_official``, ``status_official``, ``correct_official``,
    ``reader_official``) and the sound one's (``answer_sound``, ... ``reader_sound``; MCR's
    robust reader). All None where the record holds no second reading."""
    official, sound = _readings(record)
    return dict(zip(READING_COLUMNS, official + sound, strict=True))


def official_reading(record: Record) -> dict[str, Any]:
    """Return the official reading of a record: ``answer_official``, ``status_official``,
    ``correct_official`` and ``reader_official`` (None when the record holds no second
    reading).

    relreason records hold their own reading (``reader`` names its rule) and the other rule's
    under ``alt``: sound vs official for ConvRe, robust vs paper for MCR. The official one is
    the record's own where its reader is official (``--reader official``), else ``alt``.
    """
    both = two_readings(record)
    return {k: v for k, v in both.items() if k.endswith("_official")}


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
    readings = [official + sound for official, sound in map(_readings, records)]
    for position, name in enumerate(READING_COLUMNS):
        columns[name] += [reading[position] for reading in readings]
    for number, found in enumerate(taken["labels"]):
        for name, value in found.items():
            column = labels.setdefault(f"label_{name}", [])
            column += [None] * (start + number - len(column))
            column.append(list(value) if isinstance(value, list | tuple) else value)
