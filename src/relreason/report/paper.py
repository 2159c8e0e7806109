"""The papers' published figures beside the runs, for every registered benchmark: its figures
as rows (``paper_figures``, ``published``), validating ``--compare SPEC=PAPER_MODEL`` names,
the report's table of our accuracy vs the paper's (``beside_papers``) and the same figures
added to plain run rows (``beside_paper``, for ``report --json``). Every one of them finds a
run's figures through its benchmark (``Benchmark.figures_at`` of its ``report_cell``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from relreason import benchmarks
from relreason.analysis.load import Runs
from relreason.analysis.stats import accuracy_cell
from relreason.analysis.table import Drill, NotPossible, Table
from relreason.errors import UsageError

_COLUMNS = ["benchmark", "model", "task", "setting", "accuracy"]


def paper_figures(benchmark: str) -> list[dict[str, Any]]:
    """Return a benchmark's published figures as rows (benchmark, model, task, setting,
    accuracy in 0..1). Raises ``UsageError`` for an unknown benchmark."""
    figures = benchmarks.get(benchmark).paper_figures()
    return [
        {
            "benchmark": f.benchmark,
            "model": f.model,
            "task": f.task,
            "setting": int(f.setting) if f.setting.isdigit() else f.setting,
            "accuracy": f.accuracy,
        }
        for f in figures
    ]


def published() -> pd.DataFrame:
    """Return every published figure of the registered benchmarks: benchmark, model, task
    (ConvRe task or MCR language), setting (ConvRe id or MCR method), accuracy in 0..1."""
    rows = [row for name in benchmarks.names() for row in paper_figures(name)]
    return pd.DataFrame(rows, columns=_COLUMNS)


def paper_models() -> list[str]:
    """Return the papers' model names (as in ``benchmarks/<name>/paper_table*.csv``)."""
    return sorted(set(published()["model"]))


def check_compare(runs: Runs, compare: Mapping[str, str] | None) -> dict[str, str]:
    """Return ``compare`` (run model spec -> paper model); paper names match without regard
    to case (ConvRe spells ``gpt-4``, MCR ``GPT-4``: one name serves both).

    Raises ``UsageError`` listing the valid names when a spec is not a model of the runs or a
    paper model is unknown (names are matched without regard to case).
    """
    specs = sorted(set(runs.runs["spec"]))
    names = {m.lower() for m in paper_models()}
    checked = {}
    for spec, model in (compare or {}).items():
        if spec not in specs:
            raise UsageError(
                f"unknown model spec {spec!r} in --compare; the runs hold: " + ", ".join(specs)
            )
        if model.lower() not in names:
            raise UsageError(
                f"unknown paper model {model!r} in --compare; valid: " + ", ".join(paper_models())
            )
        checked[spec] = model
    return checked


def _partial_text(run: Any, n: int) -> str:
    """``40 of 1598 items, limit 40`` (the task's size when the manifest says it)."""
    total = json.loads(run["description"] or "{}").get("n_items")
    if total is None and not pd.notna(run["limit"]):
        total = run["n_items"]
    text = f"{n} of {total} items" if total else f"{n} items"
    if pd.notna(run["limit"]):
        text += f", limit {int(run['limit'])}"
    return text + ("" if run["complete"] else ", not finished")


def beside_papers(runs: Runs, compare: Mapping[str, str]) -> Table:
    """One row per run whose model ``compare`` maps to a paper model with a figure for the same
    cell: our accuracy, the paper's, the difference, and a mark for partial or subset runs
    (the papers' figures are for the full set, with the relations' own names: a run with
    neutral naming is never compared)."""
    if not compare:
        raise NotPossible("no --compare SPEC=PAPER_MODEL was given")
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    registered = set(benchmarks.names())
    for _, run in runs.runs.iterrows():
        model = compare.get(run["spec"])
        if model is None or run["neutral"] or run["benchmark"] not in registered:
            continue
        benchmark = benchmarks.get(run["benchmark"])
        task, setting = benchmark.report_cell(json.loads(run["description"] or "{}"))
        figures = {m.lower(): a for m, a in benchmark.figures_at(task, setting).items()}
        paper = figures.get(model.lower())
        if paper is None:
            continue
        cell = accuracy_cell(runs.items_of(run["run_id"])["correct"])
        marks = []
        if run["partial"]:
            shown = _partial_text(run, int(cell["n"]))
            marks.append(f"PARTIAL ({shown}): not comparable with the paper's full-set figure")
        if run["subset"]:
            marks.append("subset (328 triples)")
        drill[(len(rows), "ours")] = Drill((run["run_id"],))
        drill[(len(rows), "run")] = Drill((run["run_id"],))
        rows.append(
            {
                "run": run["run_id"],
                "model": run["model"],
                "paper_model": model,
                "benchmark": benchmark.name,
                "task": str(task),
                "setting": str(setting),
                "ours": cell["accuracy"],
                "lo": cell["lo"],
                "hi": cell["hi"],
                "paper": paper,
                "delta": cell["accuracy"] - paper,
                "inside_ci": cell["lo"] <= paper <= cell["hi"],
                "partial": bool(run["partial"]),
                "mark": "; ".join(marks),
            }
        )
    if not rows:
        raise NotPossible("no run matches a cell the compared paper models have a figure for")
    note = "lo-hi: Wilson 95% interval of ours; PARTIAL runs are not the paper's full set."
    return Table(
        "paper_compare",
        "Beside the papers' published figures",
        pd.DataFrame(rows),
        note=note,
        drill=drill,
    )


def beside_paper(
    rows: Sequence[Mapping[str, Any]], model_map: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Return run ``rows`` (see ``runs_table.collect``: benchmark, task, setting, model,
    accuracy) each with ``paper`` (paper model -> accuracy for the same cell) and, when
    ``model_map`` maps the row's model to a paper model, ``paper`` that model's accuracy,
    ``paper_model`` and ``delta``."""
    registered = set(benchmarks.names())
    out = []
    for row in rows:
        name = str(row.get("benchmark"))
        figures = (
            benchmarks.get(name).figures_at(row.get("task"), row.get("setting"))
            if name in registered
            else {}
        )
        merged = {**row, "paper": figures}
        wanted = (model_map or {}).get(str(row.get("model")), "").lower()
        paper_model = next((m for m in figures if m.lower() == wanted), None)
        if paper_model is not None:
            merged["paper"] = figures[paper_model]
            merged["paper_model"] = paper_model
            accuracy = row.get("accuracy")
            if isinstance(accuracy, int | float):
                merged["delta"] = accuracy - figures[paper_model]
        out.append(merged)
    return out
