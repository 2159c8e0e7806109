"""What the item browser filters on and shows: a record's two readings (the one that scored it
and ``alt``, the task's second rule), whether they differ, its labels as facets (relation,
category, language, hops, ...), the filters of a request, and two runs' records paired by item."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from relreason.records import STATUSES, Record

MAX_FACET_VALUES = 40
"""A label with more distinct values than this (or one per item: a head entity) is no facet."""


def readings_differ(record: Record) -> bool:
    """Whether the record's two readings differ (answer or status); False without a second."""
    alt = record.alt
    return alt is not None and (alt.answer != record.answer or alt.status != record.status)


def label_values(value: Any) -> list[str]:
    """A label's values as text (a list label, e.g. MCR's categories, gives each)."""
    if isinstance(value, list | tuple):
        return [str(v) for v in value if isinstance(v, str | int | float | bool)]
    if isinstance(value, str | int | float | bool):
        return [str(value)]
    return []


def facets(records: Sequence[Record]) -> dict[str, list[str]]:
    """The labels to filter on, each with its values sorted (numbers by number): the labels
    with at most :data:`MAX_FACET_VALUES` values and fewer values than items (or one item)."""
    seen: dict[str, set[str]] = {}
    for record in records:
        for name, value in record.labels.items():
            seen.setdefault(name, set()).update(label_values(value))
    return {
        name: sorted(values, key=_order)
        for name, values in sorted(seen.items())
        if values
        and len(values) <= MAX_FACET_VALUES
        and (len(values) < len(records) or len(records) == 1)
    }


def _order(value: str) -> tuple[int, float, str]:
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


@dataclass(frozen=True)
class Filters:
    """The item browser's filters (empty: any)."""

    status: str = ""
    correct: str = ""  # "1" | "0"
    differ: str = ""  # "1" | "0": the two readings differ
    text: str = ""  # a piece of the output
    labels: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_query(cls, query: Mapping[str, str], facet_names: Iterable[str]) -> Filters:
        """Filters from a request's query (``label_<name>`` for a facet)."""
        labels = tuple(
            (name, query[f"label_{name}"]) for name in facet_names if query.get(f"label_{name}")
        )
        return cls(
            status=query.get("status", "") if query.get("status", "") in STATUSES else "",
            correct=query.get("correct", "") if query.get("correct") in ("0", "1") else "",
            differ=query.get("differ", "") if query.get("differ") in ("0", "1") else "",
            text=query.get("text", "").strip(),
            labels=labels,
        )

    def keep(self, record: Record) -> bool:
        """Whether ``record`` passes every filter."""
        if self.status and record.status != self.status:
            return False
        if self.correct and (record.status == "correct") != (self.correct == "1"):
            return False
        if self.differ and readings_differ(record) != (self.differ == "1"):
            return False
        if self.text and self.text.lower() not in (record.output or "").lower():
            return False
        return all(value in label_values(record.labels.get(name)) for name, value in self.labels)

    def query(self) -> dict[str, str]:
        """The filters as query parameters (to carry them across pages)."""
        found = {"status": self.status, "correct": self.correct, "differ": self.differ}
        found["text"] = self.text
        found.update({f"label_{name}": value for name, value in self.labels})
        return {k: v for k, v in found.items() if v}


@dataclass(frozen=True)
class Pair:
    """One item in two runs (either side None where that run has no record of it)."""

    key: str
    a: Record | None
    b: Record | None

    @property
    def differ(self) -> bool:
        """Whether the two runs answered differently (or one has no record)."""
        if self.a is None or self.b is None:
            return True
        return (self.a.answer, self.a.status) != (self.b.answer, self.b.status)


def pair_records(a: Sequence[Record], b: Sequence[Record]) -> list[Pair]:
    """Pair two runs' records by item id (the same items), in the first run's order."""
    by_id = {r.item_id: r for r in b}
    pairs = [Pair(r.item_id, r, by_id.pop(r.item_id, None)) for r in a]
    return pairs + [Pair(key, None, r) for key, r in by_id.items()]


def agreement(pairs: Sequence[Pair]) -> dict[str, int]:
    """How many paired items both runs got right, only one, or neither (items in both only)."""
    counts = {"both": 0, "only_a": 0, "only_b": 0, "neither": 0, "differ": 0}
    for pair in pairs:
        counts["differ"] += pair.differ
        if pair.a is None or pair.b is None:
            continue
        right = (pair.a.status == "correct", pair.b.status == "correct")
        key = {(True, True): "both", (True, False): "only_a", (False, True): "only_b"}
        counts[key.get(right, "neither")] += 1
    return counts
