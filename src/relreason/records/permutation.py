"""What option-order probes (``--permute``) show: accuracy per order, consistency, and the
positions a model chooses against the positions of the gold answers.

Works on records whose labels carry ``order``, ``base_item_id`` and ``option_of`` (choice ->
index of the base option it shows, in display order; see ``relreason.benchmarks.permute``), so
it knows nothing of what the choices are called. Positions are numbered from 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from relreason.records.record import Record


def _is_permuted(record: Record) -> bool:
    labels = record.labels
    return isinstance(labels.get("option_of"), dict) and "base_item_id" in labels


def _position(option_of: Mapping[str, Any], choice: Any) -> int | None:
    keys = list(option_of)
    return keys.index(choice) + 1 if choice in keys else None


def _shares(counts: Counter[int], total: int) -> dict[str, float]:
    return {str(k): round(counts[k] / total, 4) for k in sorted(counts)} if total else {}


def permutation_stats(records: Iterable[Record]) -> dict[str, Any] | None:
    """Return the option-order figures of ``records`` (None when none is permuted).

    ``items``: base items; ``orders``: order -> accuracy and n; ``consistency``: share of base
    items whose answers, in every order, name the same base option (an unread answer breaks
    it); ``all_orders_correct``: share of base items right in every order; ``chosen_position``
    and ``gold_position``: position -> share among answered records and among all records;
    ``answered``: records with an answer.
    """
    chosen: dict[str, list[Any]] = {}
    correct_all: dict[str, bool] = {}
    by_order: dict[str, list[int]] = {}
    chosen_pos: Counter[int] = Counter()
    gold_pos: Counter[int] = Counter()
    n = answered = 0
    for record in records:
        if not _is_permuted(record):
            continue
        labels = record.labels
        option_of = labels["option_of"]
        base = str(labels["base_item_id"])
        answer = record.answer
        hit = record.status == "correct"
        n += 1
        cell = by_order.setdefault(str(labels.get("order")), [0, 0])
        cell[0] += 1
        cell[1] += hit
        correct_all[base] = correct_all.get(base, True) and hit
        chosen.setdefault(base, []).append(option_of.get(answer) if answer is not None else None)
        gold = _position(option_of, record.gold)
        if gold is not None:
            gold_pos[gold] += 1
        position = _position(option_of, answer)
        if position is not None:
            chosen_pos[position] += 1
            answered += 1
    if n == 0:
        return None
    consistent = sum(
        1 for options in chosen.values() if None not in options and len(set(options)) == 1
    )
    return {
        "items": len(chosen),
        "records": n,
        "answered": answered,
        "orders": {
            name: {"n": cell[0], "accuracy": round(cell[1] / cell[0], 4)}
            for name, cell in by_order.items()
        },
        "consistency": round(consistent / len(chosen), 4),
        "all_orders_correct": round(sum(correct_all.values()) / len(chosen), 4),
        "chosen_position": _shares(chosen_pos, answered),
        "gold_position": _shares(gold_pos, n),
    }


def format_permutation(stats: Mapping[str, Any]) -> list[str]:
    """Return the summary lines of :func:`permutation_stats` output, each at most 80 characters
    (accuracy per order is the summary's ``by order`` table)."""
    from relreason.records.context import wrap_line

    chosen = ", ".join(f"{k}: {v:.2f}" for k, v in stats["chosen_position"].items())
    gold = ", ".join(f"{k}: {v:.2f}" for k, v in stats["gold_position"].items())
    return [
        *wrap_line(
            f"option orders: {stats['items']} items, {stats['records']} asked; consistency "
            f"{stats['consistency']:.3f}; right in every order {stats['all_orders_correct']:.3f}"
        ),
        *wrap_line(f"position chosen {{{chosen}}}"),
        *wrap_line(f"position of gold {{{gold}}}"),
    ]
