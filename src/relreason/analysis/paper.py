"""The papers' published figures beside the runs: validating ``--compare SPEC=PAPER_MODEL``
names, and one table of our accuracy vs the paper's for every cell that matches."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from relreason.analysis.load import Runs
from relreason.analysis.runs_table import paper_figures
from relreason.analysis.stats import accuracy_cell
from relreason.analysis.table import Drill, NotPossible, Table
from relreason.errors import UsageError


def published() -> pd.DataFrame:
    """Return every published figure of both papers: benchmark, model, task (ConvRe task or MCR
    language), setting (ConvRe id or MCR method), accuracy in 0..1."""
    return pd.DataFrame(paper_figures("convre") + paper_figures("mcr"))


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


def _cell_of(run: Any) -> tuple[str, str, str]:
    if run["benchmark"] == "convre":
        setting = "" if pd.isna(run["setting"]) else str(int(run["setting"]))
        return ("convre", str(run["task"]), setting)
    return ("mcr", str(run["language"]), str(run["method"]))


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
    (the papers' figures are for the full set)."""
    if not compare:
        raise NotPossible("no --compare SPEC=PAPER_MODEL was given")
    figures = published()
    index = {
        (r.benchmark, str(r.task), str(r.setting), str(r.model).lower()): r.accuracy
        for r in figures.itertuples()
    }
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for _, run in runs.runs.iterrows():
        model = compare.get(run["spec"])
        if model is None or run["neutral"] or run["benchmark"] not in ("convre", "mcr"):
            continue
        paper = index.get((*_cell_of(run), model.lower()))
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
        benchmark, task, setting = _cell_of(run)
        rows.append(
            {
                "run": run["run_id"],
                "model": run["model"],
                "paper_model": model,
                "benchmark": benchmark,
                "task": task,
                "setting": setting,
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
