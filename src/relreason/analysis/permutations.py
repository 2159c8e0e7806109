"""Option-order probes (``--permute`` runs): accuracy per order, consistency (the same option
chosen in every order), right in every order, and the positions chosen against the positions
of the gold answers (``relreason.records.permutation`` computes the figures)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from relreason.analysis.load import Runs, run_label
from relreason.analysis.table import Drill, NotPossible, Table
from relreason.records.permutation import permutation_stats
from relreason.records.record import Record

_NEEDED = ("label_order", "label_base_item_id", "label_option_of")


def _stats(items: pd.DataFrame) -> dict[str, Any] | None:
    records = [
        Record(
            index=index,
            item_id=str(base),
            gold=gold,
            answer=answer,
            status=status,
            labels={"order": order, "base_item_id": base, "option_of": option_of},
        )
        for index, answer, status, gold, order, base, option_of in zip(
            items["index"],
            items["answer"],
            items["status"],
            items["gold"],
            items["label_order"],
            items["label_base_item_id"],
            items["label_option_of"],
            strict=True,
        )
    ]
    return permutation_stats(records)


def _permuted(runs: Runs) -> list[tuple[Any, dict[str, Any]]]:
    if any(c not in runs.items for c in _NEEDED):
        raise NotPossible("no run was made with --permute (option-order probes)")
    found = []
    for _, run in runs.runs.iterrows():
        mine = runs.items_of(run["run_id"])
        mine = mine[mine["label_option_of"].map(lambda v: isinstance(v, dict))]
        stats = _stats(mine) if len(mine) else None
        if stats is not None:
            found.append((run, stats))
    if not found:
        raise NotPossible("no run was made with --permute (option-order probes)")
    return found


def order_accuracy(runs: Runs) -> Table:
    """One row per permuted run and order: accuracy and n, with the run's consistency and
    share of base items right in every order."""
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for run, stats in _permuted(runs):
        for order, cell in stats["orders"].items():
            drill[(len(rows), "accuracy")] = Drill((run["run_id"],), (("label_order", order),))
            rows.append(
                {
                    "run": run["run_id"],
                    "model": run_label(run),
                    "permute": run["permute"],
                    "order": order,
                    "n": cell["n"],
                    "accuracy": cell["accuracy"],
                    "consistency": stats["consistency"],
                    "all_orders_right": stats["all_orders_correct"],
                    "base_items": stats["items"],
                }
            )
    note = (
        "consistency: share of base items whose answer names the same option in every order "
        "(an unread answer breaks it); all_orders_right: right in every order."
    )
    return Table(
        "permute_orders",
        "Option orders: accuracy per order and consistency",
        pd.DataFrame(rows),
        note=note,
        drill=drill,
    )


def positions(runs: Runs) -> Table:
    """One row per permuted run and position (1 = first option shown): its share among the
    gold answers and among the answers chosen."""
    rows: list[dict[str, Any]] = []
    for run, stats in _permuted(runs):
        gold, chosen = stats["gold_position"], stats["chosen_position"]
        for position in sorted(set(gold) | set(chosen), key=int):
            rows.append(
                {
                    "run": run["run_id"],
                    "model": run_label(run),
                    "position": int(position),
                    "gold": gold.get(position, 0.0),
                    "chosen": chosen.get(position, 0.0),
                    "excess": chosen.get(position, 0.0) - gold.get(position, 0.0),
                }
            )
    return Table(
        "permute_positions",
        "Option orders: position chosen vs position of the gold answer",
        pd.DataFrame(rows),
        note="Shares: chosen among the answered records, gold among all records.",
    )
