"""How runs are told apart in tables: the set-up knobs that make two runs of one model in one
cell different runs (``label_runs``), and which run a table shows when several fill one cell
(``pick_runs``: most items, then fewest failures)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

KNOBS: dict[str, Callable[[Any], str]] = {
    "permute": lambda v: f"permute {v}",
    "epochs": lambda v: f"{int(v)} epochs",
    "api": lambda v: f"{v} API",
    "chat_template": lambda v: "chat template" if v else "no chat template",
    "max_new_tokens": lambda v: f"max {int(v)} tokens",
    "temperature": lambda v: f"T={v:g}" if isinstance(v, int | float) else f"T={v}",
    "reader": lambda v: f"reader {v}",
}
"""Set-up knobs that name a run in tables when runs of one model in one cell differ in them."""

_SET_SOMEWHERE = ("neutral", "subset", "permute", "epochs", "sample", "limit")
"""Set-up columns shown as soon as any run sets them (a true flag, a limit, a permutation)."""
SETUP_COLUMNS: tuple[str, ...] = (
    *_SET_SOMEWHERE,
    *("reader", "scoring", "mode", "api", "chat_template", "max_new_tokens", "temperature"),
)
"""The columns listed wherever runs are (those that vary, or that any run sets)."""


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and pd.isna(value))


def _cell(description: str) -> str:
    """The cell a run fills: its task description without ``permute`` and ``epochs`` (set-up
    knobs)."""
    data = json.loads(description or "{}")
    data.pop("permute", None)
    data.pop("epochs", None)
    return json.dumps(data, sort_keys=True)


def label_runs(runs: pd.DataFrame) -> None:
    """Extend ``runs["model"]`` (in place) by the knobs (:data:`KNOBS`) in which two runs of one
    spec in one cell differ, for every run of that spec, e.g. ``m [completions API]``."""
    if runs.empty:
        return
    cells = runs["description"].map(_cell)
    for spec in runs["spec"].unique():
        mine = runs["spec"] == spec
        naming = []
        for knob in KNOBS:
            values = runs.loc[mine, knob].map(lambda v: None if _missing(v) else str(v))
            per_cell = values.groupby(cells[mine]).nunique(dropna=False)
            if (per_cell > 1).any():
                naming.append(knob)
        if not naming:
            continue
        for position in runs.index[mine]:
            parts = [
                KNOBS[k](runs.at[position, k]) for k in naming if not _missing(runs.at[position, k])
            ]
            if parts:
                runs.at[position, "model"] = f"{runs.at[position, 'model']} [{', '.join(parts)}]"


def setup_columns(runs: pd.DataFrame) -> list[str]:
    """The set-up columns worth showing for ``runs``: those with more than one value, or with
    a value any run sets (a flag that is true, a limit, a permutation)."""
    shown = []
    for column in SETUP_COLUMNS:
        if column not in runs:
            continue
        values = runs[column].map(lambda v: None if _missing(v) else v)
        distinct = values.astype(str).nunique()
        set_somewhere = column in _SET_SOMEWHERE and any(bool(v) for v in values if v is not None)
        if distinct > 1 or set_somewhere:
            shown.append(column)
    return shown


def pick_runs(meta: pd.DataFrame, cell: Sequence[str], what: str) -> tuple[pd.DataFrame, list[str]]:
    """Keep one run per ``cell`` (columns of ``meta``): the one with most records, then fewest
    failed. Returns the kept runs and one sentence per cell that had several, naming the run
    shown and the others (``what`` names the table)."""
    if meta.empty:
        return meta, []
    ranked = meta.assign(n_fail_=meta["failed"].fillna(0), n_rec_=meta["n_records"].fillna(0))
    ranked = ranked.sort_values(["n_rec_", "n_fail_", "run_id"], ascending=[False, True, True])
    notes = []
    for key, group in ranked.groupby(list(cell), dropna=False, sort=True):
        if len(group) > 1:
            first = group.iloc[0]
            others = ", ".join(
                f"{r.run_id} ({int(r.n_rec_)} items, {int(r.n_fail_)} failed)"
                for r in group.iloc[1:].itertuples()
            )
            name = " / ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
            notes.append(
                f"{what}, {name}: {len(group)} runs; shown {first['run_id']} "
                f"({int(first['n_rec_'])} items, {int(first['n_fail_'])} failed: most items, then "
                f"fewest failures); not shown: {others}."
            )
    kept = ranked.drop_duplicates(list(cell), keep="first").drop(columns=["n_fail_", "n_rec_"])
    return kept.sort_index(), notes
