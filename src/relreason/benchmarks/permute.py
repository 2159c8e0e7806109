"""Option-order probes: one task's items under several option orders (``--permute``).

``permute_task(task, how, reorder)`` returns a task whose items are each base item shown in
every order that ``how`` names (the benchmark's ``reorder`` writes the prompt again; the gold
follows its option). Each permuted item gets a new index, ``item_id`` ``"<base id>@<order>"``
and the labels ``order``, ``base_index``, ``base_item_id`` and ``option_of`` (choice -> index of
the base option it shows, in display order), so summaries can tell accuracy per order,
consistency (the same base option chosen in every order) and the positions chosen, without
knowing what the choices are called. ``how``:

- ``cyclic``: every rotation (``n`` orders for ``n`` options; ``rot0`` is the original);
- ``reverse``: the original and the reversed order (``orig``, ``rev``);
- ``all``: every permutation (at most :data:`MAX_ALL` per item);
- a number ``N``: the original and ``N - 1`` other orders drawn at random, seeded by the item
  id (the same items on every run and resume).

``permuted(task, how)``, which looks up the task's benchmark for its ``reorder``, is in
:mod:`relreason.benchmarks.registry` (this module knows no benchmark).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import random
from collections.abc import Callable

from relreason.errors import UsageError
from relreason.types import EvalItem, Task

PERMUTE_FORMS = "cyclic | reverse | all | N"
MAX_ALL = 120
"""``all`` refuses items with more orders than this (5 options); use a number instead."""

Order = tuple[int, ...]
Reorder = Callable[[EvalItem, Order], EvalItem]


def parse_permute(value: str) -> str:
    """Return ``value`` normalised (``cyclic``, ``reverse``, ``all`` or a number >= 2 as text).

    Raises ``UsageError`` naming the valid forms otherwise.
    """
    key = str(value).strip().lower()
    if key in ("cyclic", "reverse", "all"):
        return key
    if key.isdigit() and int(key) >= 2:
        return str(int(key))
    raise UsageError(f"--permute takes {PERMUTE_FORMS} (a number >= 2), got {value!r}")


def _name(order: Order) -> str:
    return "orig" if order == tuple(range(len(order))) else "p" + "-".join(map(str, order))


def orders(n: int, how: str, key: str = "") -> list[tuple[str, Order]]:
    """Return the named orders of ``n`` options that ``how`` stands for (the original first).

    ``key`` seeds the random orders of a number ``how``. Raises ``UsageError`` for a bad
    ``how`` or ``all`` over more than :data:`MAX_ALL` orders.
    """
    how = parse_permute(how)
    identity = tuple(range(n))
    if how == "cyclic":
        return [(f"rot{k}", identity[k:] + identity[:k]) for k in range(n)]
    if how == "reverse":
        return [("orig", identity)] + ([("rev", identity[::-1])] if n > 1 else [])
    if how == "all":
        if math.factorial(n) > MAX_ALL:
            raise UsageError(
                f"--permute all: {math.factorial(n)} orders of {n} options is too many "
                f"(at most {MAX_ALL}); use --permute N"
            )
        return [(_name(p), p) for p in itertools.permutations(identity)]
    wanted = min(int(how), math.factorial(n))
    seed = int.from_bytes(hashlib.sha256(f"{key}|{how}".encode()).digest()[:8], "big")
    rng = random.Random(seed)
    chosen: list[Order] = [identity]
    while len(chosen) < wanted:
        candidate = tuple(rng.sample(identity, n))
        if candidate not in chosen:
            chosen.append(candidate)
    return [(_name(p), p) for p in chosen]


def permute_items(items: tuple[EvalItem, ...], how: str, reorder: Reorder) -> tuple[EvalItem, ...]:
    """Return every item under every order of ``how``, numbered 0, 1, ... in item order.

    Raises ``UsageError`` for a bad ``how``, ``ValueError`` when ``reorder`` cannot reorder.
    """
    out: list[EvalItem] = []
    for item in items:
        for name, order in orders(len(item.choices), how, item.item_id):
            shown = reorder(item, order)
            labels = {
                **item.labels,
                "order": name,
                "base_index": item.index,
                "base_item_id": item.item_id,
                "option_of": dict(zip(shown.choices, order, strict=True)),
            }
            out.append(
                dataclasses.replace(
                    shown, index=len(out), item_id=f"{item.item_id}@{name}", labels=labels
                )
            )
    return tuple(out)


def permute_task(task: Task, how: str, reorder: Reorder) -> Task:
    """Return ``task`` with every item under every order of ``how`` (see the module text).

    The description gains ``permute`` (so a resumed run rebuilds the same items), the name
    ``+permute-<how>``, and summaries break accuracy down by ``order`` too.
    """
    how = parse_permute(how)
    return dataclasses.replace(
        task,
        name=f"{task.name}+permute-{how}",
        description={**task.description, "permute": how},
        items=permute_items(task.items, how, reorder),
        group_by=(*task.group_by, "order"),
    )
