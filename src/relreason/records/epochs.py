"""What repeated asking (``--epochs N``) shows: accuracy per epoch and its spread, an interval
with items as the unit, and each item's epochs reduced to one score.

Works on records whose labels carry ``epoch`` and ``epoch_item`` (the repeated item's id; see
``relreason.benchmarks.epochs``). The reducers, each a share of items:

- ``mean``: the mean over items of each item's share of right epochs (= ``pass@1``);
- ``majority``: the item's most common answer (ties: the one given first) is right;
- ``pass@k``: the unbiased estimator of Chen et al. (2021), ``1 - C(n-c, k) / C(n, k)`` for an
  item right in ``c`` of its ``n`` epochs, for k = 1 .. the fewest epochs an item has;
- ``at_least_one``: the item is right in some epoch.

``mean_ci95`` is a normal interval of ``mean`` over the items' mean scores (items, not records,
are the unit, so the epochs' agreement with each other widens it as it should).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from relreason.records.record import Record

Epochs = Sequence[tuple[Any, bool]]
"""One item's epochs: (answer, right) for each, in epoch order (answer None: none read)."""

Z95 = 1.959964


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of an item right in ``c`` of ``n`` samples (Chen et al. 2021)."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _majority_right(epochs: Epochs) -> bool:
    answers = Counter(answer for answer, _ in epochs if answer is not None)
    if not answers:
        return False
    top = max(answers.values())
    chosen = next(answer for answer, _ in epochs if answers.get(answer) == top)
    return any(right for answer, right in epochs if answer == chosen)


def reduce_epochs(items: Sequence[Epochs]) -> dict[str, Any]:
    """Return the reducers of ``items`` (each item's epochs; items without any are skipped):
    ``items``, ``mean``, ``mean_ci95``, ``majority``, ``pass_at_k`` (k -> share) and
    ``at_least_one`` (see the module text)."""
    items = [epochs for epochs in items if epochs]
    m = len(items)
    if m == 0:
        return {"items": 0}
    scores = [sum(right for _, right in epochs) / len(epochs) for epochs in items]
    mean = sum(scores) / m
    half = Z95 * statistics.stdev(scores) / math.sqrt(m) if m > 1 else 1.0
    fewest = min(len(epochs) for epochs in items)
    pass_k = {
        str(k): round(sum(pass_at_k(len(e), sum(r for _, r in e), k) for e in items) / m, 4)
        for k in range(1, fewest + 1)
    }
    return {
        "items": m,
        "mean": round(mean, 4),
        "mean_ci95": [round(max(0.0, mean - half), 4), round(min(1.0, mean + half), 4)],
        "majority": round(sum(_majority_right(e) for e in items) / m, 4),
        "pass_at_k": pass_k,
        "at_least_one": round(sum(any(r for _, r in e) for e in items) / m, 4),
    }


def epoch_stats(records: Iterable[Record]) -> dict[str, Any] | None:
    """Return the epoch figures of ``records`` (None when none was asked under ``--epochs``):
    ``epochs`` (the most an item has), ``records``, ``per_epoch`` (epoch -> accuracy and n),
    ``epoch_sd`` (the sample standard deviation of the per-epoch accuracies; None for one
    epoch) and the reducers of :func:`reduce_epochs`."""
    by_item: dict[str, list[tuple[int, Any, bool]]] = {}
    by_epoch: dict[int, list[int]] = {}
    n = 0
    for record in records:
        labels = record.labels
        epoch = labels.get("epoch")
        if not isinstance(epoch, int) or "epoch_item" not in labels:
            continue
        right = record.status == "correct"
        n += 1
        by_item.setdefault(str(labels["epoch_item"]), []).append((epoch, record.answer, right))
        cell = by_epoch.setdefault(epoch, [0, 0])
        cell[0] += 1
        cell[1] += right
    if n == 0:
        return None
    accuracies = [by_epoch[e][1] / by_epoch[e][0] for e in sorted(by_epoch)]
    items = [[(a, r) for _, a, r in sorted(rows, key=lambda x: x[0])] for rows in by_item.values()]
    return {
        "epochs": max(len(rows) for rows in items),
        "records": n,
        "per_epoch": {
            str(e): {"n": by_epoch[e][0], "accuracy": round(by_epoch[e][1] / by_epoch[e][0], 4)}
            for e in sorted(by_epoch)
        },
        "epoch_sd": round(statistics.stdev(accuracies), 4) if len(accuracies) > 1 else None,
        **reduce_epochs(items),
    }


def format_epochs(stats: Mapping[str, Any]) -> list[str]:
    """Return the summary lines of :func:`epoch_stats` output, each at most 80 characters."""
    from relreason.records.context import wrap_line

    per = ", ".join(f"{cell['accuracy']:.3f}" for cell in stats["per_epoch"].values())
    sd = "" if stats["epoch_sd"] is None else f" (sd {stats['epoch_sd']:.3f})"
    low, high = stats["mean_ci95"]
    top = max(stats["pass_at_k"], key=int)
    return [
        *wrap_line(f"epochs: {stats['epochs']} x {stats['items']} items; per epoch {per}{sd}"),
        *wrap_line(
            f"mean {stats['mean']:.4f} (95% CI {low:.3f}-{high:.3f}, items as unit); "
            f"majority {stats['majority']:.4f}; pass@{top} {stats['pass_at_k'][top]:.4f}; "
            f"at least one {stats['at_least_one']:.4f}"
        ),
    ]
