"""Epochs: one task's items asked several times (``--epochs N``), for sampling variance.

``epoch_task(task, n)`` returns a task whose items are each item of ``task`` repeated ``n``
times, numbered 0, 1, ... in item order; each repeat gets ``item_id`` ``"<id>#e<epoch>"`` and the
labels ``epoch`` (0 .. n-1), ``epoch_base`` (the repeated item's index) and ``epoch_item`` (its
id), so a summary can tell accuracy per epoch and reduce each item's answers (see
:mod:`relreason.records.epochs`). The run asks each epoch under the seed ``seed + epoch`` and
caches each epoch apart (``relreason.run.items``). ``n == 1`` returns ``task`` itself: prompts,
records, fingerprints and cache keys stay as they were without the option.
"""

from __future__ import annotations

import dataclasses

from relreason.errors import UsageError
from relreason.types import EvalItem, Task

EPOCH_LABEL = "epoch"


def parse_epochs(value: object) -> int:
    """Return ``value`` as a number of epochs (>= 1); ``UsageError`` otherwise."""
    try:
        n = int(str(value).strip())
    except ValueError:
        n = 0
    if n < 1:
        raise UsageError(f"--epochs takes a whole number >= 1, got {value!r}")
    return n


def epoch_items(items: tuple[EvalItem, ...], n: int) -> tuple[EvalItem, ...]:
    """Return every item ``n`` times (its epochs next to each other), numbered in order."""
    out: list[EvalItem] = []
    for item in items:
        for epoch in range(n):
            labels = {
                **item.labels,
                EPOCH_LABEL: epoch,
                "epoch_base": item.index,
                "epoch_item": item.item_id,
            }
            out.append(
                dataclasses.replace(
                    item, index=len(out), item_id=f"{item.item_id}#e{epoch}", labels=labels
                )
            )
    return tuple(out)


def epoch_task(task: Task, n: int | None) -> Task:
    """Return ``task`` with each item asked ``n`` times (``task`` itself for None or 1).

    The description gains ``epochs`` (so a resumed run rebuilds the same items), the name
    ``+epochs-<n>``, and summaries break accuracy down by ``epoch`` too.
    """
    if n is None or parse_epochs(n) == 1:
        return task
    n = parse_epochs(n)
    return dataclasses.replace(
        task,
        name=f"{task.name}+epochs-{n}",
        description={**task.description, "epochs": n},
        items=epoch_items(task.items, n),
        group_by=(*task.group_by, EPOCH_LABEL),
    )
