"""The report's first table: every run with its accuracy, how many items it has done, and the
set-up columns that tell runs apart (neutral naming, permutation, sample/limit, reader,
scoring, API, generation limits); each run's task and setting as its benchmark names them
(``Benchmark.report_cell``, ``setting_text``, ``settings_legend``)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from relreason import benchmarks
from relreason.analysis.load import Runs
from relreason.analysis.setup import setup_columns
from relreason.analysis.table import Drill, NotPossible, Table
from relreason.records import wilson_interval


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
    registered = set(benchmarks.names())
    settings: dict[str, list[Any]] = {}  # benchmark -> its runs' settings, for the legend
    extra = setup_columns(runs.runs)
    for _, run in runs.runs.iterrows():
        k = n = 0
        if counts is not None and run["run_id"] in counts.index:
            k, n = (int(v) for v in counts.loc[run["run_id"]])
        answered = n - int(run["failed"] or 0)
        accuracy = k / n if n and answered else None
        lo, hi = wilson_interval(k, n) if accuracy is not None else (None, None)
        task, setting = _cell(run["benchmark"], run["description"])
        settings.setdefault(str(run["benchmark"]), []).append(setting)
        if run["benchmark"] in registered:
            setting = benchmarks.get(run["benchmark"]).setting_text(setting)
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
                **{c: run[c] for c in extra},
            }
        )
    data = pd.DataFrame(rows)
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
    legends = [
        benchmarks.get(name).settings_legend(values)
        for name, values in settings.items()
        if name in registered
    ]
    note = (
        "Accuracy of all the run's records, Wilson 95% interval; n: records (of the task's items "
        "when fewer: a limit, a sample, or a run not finished); '-': nothing answered. "
        + " ".join(legend for legend in legends if legend)
    ).strip()
    return Table("runs", "Runs: accuracy per run", data, shown, note, drill)


def _interval(lo: Any, hi: Any) -> str:
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return "-"
    return f"[{lo:.2f}, {hi:.2f}]"
