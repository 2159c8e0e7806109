"""The report's first table: every run with its accuracy, how many items it has done, and the
set-up columns that tell runs apart (neutral naming, permutation, sample/limit, reader,
scoring, API, generation limits)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from relreason import benchmarks
from relreason.analysis.load import Runs
from relreason.analysis.setup import setup_columns
from relreason.analysis.table import Drill, NotPossible, Table
from relreason.records import wilson_interval

SETTING_NAMES = {
    1: "normal-re, normal-text",
    2: "normal-re, altered-text",
    3: "converse-re, normal-text",
    4: "converse-re, altered-text",
    5: "converse-re, normal-text, hint",
    6: "converse-re, altered-text, hint",
    7: "3-shot, hard-hard",
    8: "3-shot, hard-hard, hint-cot",
    9: "6-shot, hard-hard",
    10: "3-shot, regular-hard",
    11: "3-shot, regular-hard, hint-cot",
    12: "6-shot, regular-hard",
}
"""ConvRe's prompt ids as the paper names them (its Tables 2 and 3: zero-shot 1#-6#, few-shot
7#-12#; examples-tests for the few-shot ones)."""


def settings_legend(ids: Any = None) -> str:
    """Return the legend of ConvRe's prompt ids (``ids``, or all twelve) as one sentence."""
    wanted = sorted({int(i) for i in (SETTING_NAMES if ids is None else ids) if pd.notna(i)})
    named = "; ".join(f"{i}# {SETTING_NAMES[i]}" for i in wanted if i in SETTING_NAMES)
    return f"Settings (paper Tables 2-3): {named}." if named else ""


def _cell(benchmark: Any, description: str) -> tuple[Any, Any]:
    """The (task, setting) a run is tabulated under, as its benchmark says."""
    data = json.loads(description or "{}")
    name = str(benchmark)
    if name in benchmarks.names():
        return benchmarks.get(name).report_cell(data)
    return (data.get("task"), data.get("setting"))


def _done(run: Any) -> str:
    total = run["n_task"] if pd.notna(run["n_task"]) else run["n_items"]
    n = int(run["n_records"])
    if pd.notna(total) and int(total) != n:
        return f"{n} of {int(total)}"
    return str(n)


def runs_accuracy(runs: Runs) -> Table:
    """One row per run: benchmark, model, task/setting (or language/method), accuracy with its
    Wilson 95% interval (``-`` when nothing was answered), items done (of the task's), failed,
    status, and the set-up columns that vary."""
    if runs.runs.empty:
        raise NotPossible("no run")
    items = runs.items
    counts = items.groupby("run_id")["correct"].agg(["sum", "count"]) if len(items) else None
    rows: list[dict[str, Any]] = []
    for _, run in runs.runs.iterrows():
        k = n = 0
        if counts is not None and run["run_id"] in counts.index:
            k, n = (int(v) for v in counts.loc[run["run_id"]])
        answered = n - int(run["failed"] or 0)
        accuracy = k / n if n and answered else None
        lo, hi = wilson_interval(k, n) if accuracy is not None else (None, None)
        task, setting = _cell(run["benchmark"], run["description"])
        if run["benchmark"] == "convre" and pd.notna(setting):
            setting = f"{int(setting)}#"
        rows.append(
            {
                "run_id": run["run_id"],
                "benchmark": run["benchmark"],
                "model": run["model"],
                "task": task,
                "setting": setting,
                "accuracy": accuracy,
                "lo": lo,
                "hi": hi,
                "n": n,
                "n_items": run["n_items"],
                "n_task": run["n_task"],
                "failed": int(run["failed"] or 0),
                "status": run["status"],
                **{c: run[c] for c in setup_columns(runs.runs)},
            }
        )
    data = pd.DataFrame(rows)
    extra = setup_columns(runs.runs)
    shown = data[["run_id", "benchmark", "model", "task", "setting"]].rename(
        columns={"run_id": "run"}
    )
    shown = shown.assign(
        accuracy=[
            "-" if r.accuracy is None or pd.isna(r.accuracy) else f"{r.accuracy:.3f}"
            for r in data.itertuples()
        ],
        **{"95% CI": [_interval(r.lo, r.hi) for r in data.itertuples()]},
        n=[_done(run) for _, run in runs.runs.iterrows()],
        failed=data["failed"],
        status=data["status"],
    )
    for column in extra:
        shown[column] = data[column]
    drill = {
        (position, "accuracy"): Drill((run_id,)) for position, run_id in enumerate(data["run_id"])
    }
    note = (
        "Accuracy of all the run's records, Wilson 95% interval; n: records (of the task's items "
        "when fewer: a limit, a sample, or a run not finished); '-': nothing answered. "
        + settings_legend(runs.runs.loc[runs.runs["benchmark"] == "convre", "setting"])
    ).strip()
    return Table("runs", "Runs: accuracy per run", data, shown, note, drill)


def _interval(lo: Any, hi: Any) -> str:
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return "-"
    return f"[{lo:.2f}, {hi:.2f}]"
