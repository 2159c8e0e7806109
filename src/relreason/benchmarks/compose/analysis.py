"""The generated benchmark (``compose``): accuracy by domain, number of hops, number of options
and language, each beside chance (the mean of 1/options over the same items) and the
always-first-option baseline on the same items (a shortcut check: the position of the gold)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from relreason.analysis.load import Runs, run_label
from relreason.analysis.stats import accuracy_cell
from relreason.analysis.table import Drill, NotPossible, Table, number_text

BREAKDOWNS = ("domain", "hops", "n_options", "language")


def compose_breakdown(runs: Runs) -> Table:
    """One row per compose run, breakdown (domain, hops, n_options, language) and value:
    n, accuracy [Wilson 95%], chance, the first-option baseline and accuracy minus chance."""
    part = runs.of("compose")
    if part.runs.empty:
        raise NotPossible("no compose run in the folder")
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for _, run in part.runs.iterrows():
        mine = part.items_of(run["run_id"])
        for by in BREAKDOWNS:
            column = f"label_{by}"
            if column not in mine or mine[column].isna().all():
                continue
            for value, group in mine.groupby(mine[column].astype(str), sort=True):
                cell = accuracy_cell(group["correct"])
                options = group.get("label_n_options", pd.Series(dtype=float)).dropna()
                chance = float((1 / options.astype(float)).mean()) if len(options) else None
                first = float((group["gold"] == "A").mean()) if len(group) else None
                drill[(len(rows), "accuracy")] = Drill((run["run_id"],), ((column, value),))
                rows.append(
                    {
                        "run_id": run["run_id"],
                        "model": run_label(run),
                        "language": run["language"],
                        "method": run["method"],
                        "by": by,
                        "value": value,
                        "n": cell["n"],
                        "accuracy": cell["accuracy"],
                        "lo": cell["lo"],
                        "hi": cell["hi"],
                        "chance": chance,
                        "first_option": first,
                        "above_chance": None if chance is None else cell["accuracy"] - chance,
                    }
                )
    if not rows:
        raise NotPossible("the compose records carry no domain, hops or n_options label")
    data = pd.DataFrame(rows)
    shown = data[["model", "language", "method", "by", "value", "n"]].copy()
    shown["accuracy"] = [
        f"{a:.3f} [{lo:.2f}, {hi:.2f}]"
        for a, lo, hi in zip(data["accuracy"], data["lo"], data["hi"], strict=True)
    ]
    shown["chance"] = data["chance"]
    shown["first option"] = data["first_option"]
    shown["vs chance"] = [
        "-" if v is None or pd.isna(v) else number_text(v, signed=True)
        for v in data["above_chance"]
    ]
    note = (
        "Accuracy [Wilson 95%]; chance: mean of 1/options over the same items; first option: "
        "the accuracy of always answering A (the share of gold answers in first position)."
    )
    return Table(
        "compose_breakdown",
        "Compose: accuracy by domain, hops, options and language",
        data,
        shown,
        note,
        drill,
    )
