"""Breakdowns of accuracy over runs: per value of an item label, one row per run."""

from __future__ import annotations

import pandas as pd

from relreason.analysis.load import Runs, run_label
from relreason.analysis.stats import counts_cell
from relreason.analysis.table import Drill, NotPossible, Table


def by_label(runs: Runs, label: str, benchmark: str, name: str, note: str = "") -> Table:
    """Accuracy per value of ``label`` (e.g. ``relation``, ``source``, ``categories``) in the
    runs of ``benchmark`` (``name``: how the title writes it): one row per run, one column per
    value; a list-valued label counts the item under each value."""
    part = runs.of(benchmark)
    column = f"label_{label}"
    if part.runs.empty or column not in part.items.columns:
        raise NotPossible(f"no {benchmark} record has the label {label!r}")
    items = part.items[["run_id", column, "correct"]]
    items = items.explode(column)
    items = items[items[column].notna()]
    keys = pd.Series([str(v) for v in items[column]], index=items.index, dtype=object)
    counts = items.groupby([items["run_id"], keys])["correct"].agg(["sum", "count"])
    found = {
        key: (int(k), int(n))
        for key, k, n in zip(counts.index, counts["sum"], counts["count"], strict=True)
    }
    values = sorted(set(keys))
    data_rows, shown_rows, drill = [], [], {}
    for position, (_, run) in enumerate(part.runs.iterrows()):
        row = {"run": run["run_id"], "model": run_label(run)}
        for value in values:
            k, n = found.get((run["run_id"], value), (0, 0))
            if n:
                cell = counts_cell(k, n)
                data_rows.append(
                    {"run_id": run["run_id"], "model": run["model"], label: value, **cell}
                )
                row[value] = cell["accuracy"]
                drill[(position, value)] = Drill((run["run_id"],), ((column, value),))
        shown_rows.append(row)
    title = f"{name}: accuracy per {label}"
    shown = pd.DataFrame(shown_rows).reindex(columns=["run", "model", *values])
    return Table(f"{benchmark}_by_{label}", title, pd.DataFrame(data_rows), shown, note, drill)
