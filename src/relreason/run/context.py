"""A run's context, from its task: chance, the baselines on the same items, the paper's figures
for the same cell and the answer habit (see :mod:`relreason.records.context`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import PurePath
from typing import Any

from relreason.models.baselines import baseline_pick
from relreason.records.context import answer_habit, chance_level
from relreason.records.record import Record
from relreason.types import EvalItem, Task

CONTEXT_BASELINES = ("random", "first")
"""The baselines computed for every summary (``oracle`` would always be 1)."""


def baseline_accuracy(items: Sequence[EvalItem], kind: str, *, seed: int = 0) -> float | None:
    """The accuracy the ``kind`` baseline (``relreason run --model KIND``) gets on ``items``.

    Computed directly (no run): the baseline's pick for each item's prompt and choices.
    """
    scored = [item for item in items if item.choices]
    if not scored:
        return None
    right = sum(
        baseline_pick(kind, item.prompt, item.choices, seed=seed, reference=item.gold) == item.gold
        for item in scored
    )
    return right / len(scored)


def paper_figures_for(task: Task) -> dict[str, Any] | None:
    """The paper's figures for the cell ``task`` belongs to (model -> accuracy), or None."""
    from relreason import benchmarks

    if task.benchmark not in benchmarks.names():
        return None
    bench = benchmarks.get(task.benchmark)
    row, column = bench.report_cell(task.description)
    figures = bench.figures_at(row, column)
    if not figures:
        return None
    stem = PurePath(bench.reference_table or "paper").stem
    table = "Table " + stem.removeprefix("paper_table") if stem.startswith("paper_table") else stem
    return {"source": f"{bench.name} {table}", "cell": f"{row}, {column}", "figures": figures}


def task_context(task: Task, records: Iterable[Record]) -> dict[str, Any]:
    """The context of ``records`` (a run of ``task``): over the items that have a record."""
    records = list(records)
    done = {r.index for r in records}
    items = [item for item in task.items if item.index in done]
    return {
        "chance": chance_level(items),
        "baselines": {kind: baseline_accuracy(items, kind) for kind in CONTEXT_BASELINES},
        "paper": paper_figures_for(task),
        "answers": answer_habit(records),
    }
