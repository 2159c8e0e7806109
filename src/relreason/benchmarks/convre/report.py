"""ConvRe's report sections: Table 9 (with its figure beside the paper's lines), paired
contrasts, accuracy per relation and source, Tables 6-8 (with the paper's figures for the
models ``--compare`` maps) and the scaling trends (Figures 5 and 7). The analyses themselves are
pure functions in :mod:`relreason.benchmarks.convre.analysis` and
:mod:`relreason.benchmarks.convre.scaling`."""

from __future__ import annotations

import pandas as pd

from relreason.analysis import breakdowns, figures
from relreason.analysis.paper import reference_csv, set_cell
from relreason.analysis.sections import ReportInput, ReportSection, with_figure
from relreason.analysis.table import NotPossible, Table
from relreason.benchmarks.convre import analysis as convre
from relreason.benchmarks.convre import scaling

_PACKAGE = __package__ or "relreason.benchmarks.convre"


def published() -> pd.DataFrame:
    """ConvRe's Table 9 figures as rows (benchmark, model, task, setting, accuracy in 0..1), the
    rows ``ConvRe.parse_reference`` reads: the prompt id is the setting, no empty accuracy."""
    table = reference_csv(_PACKAGE, "paper_table9.csv").dropna(subset=["accuracy"])
    rows = {
        "benchmark": "convre",
        "model": table["model"],
        "task": table["task"],
        "setting": table["prompt"].astype(int).astype(object),  # object, as beside MCR's methods
        "accuracy": table["accuracy"].astype(float),
    }
    return pd.DataFrame(rows).reset_index(drop=True)


def _paper(given: ReportInput) -> pd.DataFrame:
    """ConvRe's Table 9 figures (of the models ``--compare`` maps, when it maps any)."""
    paper = published()
    mapped = {m.lower() for m in given.compare.values()}
    return paper[paper["model"].str.lower().isin(mapped)] if mapped else paper


def _table9(given: ReportInput) -> Table:
    paper = _paper(given)
    return with_figure(convre.table9(given.runs), lambda d: figures.lines_by_setting(d, paper))


def _by_source(given: ReportInput) -> Table:
    table = breakdowns.by_label(given.runs, "source", "convre", "ConvRe")
    return with_figure(table, lambda d: figures.heatmap(d, ["run_id"], "source"))


def _table6(given: ReportInput) -> Table:
    """Table 6 with GPT-4's full-set and subset figures beside a row it maps."""
    table = convre.subset_vs_full(given.runs)
    mapped = {model: paper.lower() for model, paper in given.paper_models().items()}
    if not mapped:
        return table
    paper = reference_csv(_PACKAGE, "paper_table6.csv")
    for position, row in enumerate(table.data.to_dict("records")):
        if mapped.get(row["model"]) != "gpt-4":
            continue
        cells = paper[(paper["task"] == row["task"]) & (paper["prompt"] == row["setting"])]
        for dataset, column in (("complete", "paper_full"), ("subset", "paper_subset")):
            found = cells.loc[cells["dataset"] == dataset, "accuracy"]
            if len(found):
                set_cell(table, position, column, float(found.iloc[0]))
    return table


def _table7(given: ReportInput) -> Table:
    """Table 7 with the paper's neutral accuracy (and difference) for a model it maps."""
    table = convre.neutral_vs_normal(given.runs)
    mapped = {model: paper.lower() for model, paper in given.paper_models().items()}
    if not mapped:
        return table
    paper = reference_csv(_PACKAGE, "paper_table7.csv")
    paper["model"] = paper["model"].str.lower()
    for position, row in enumerate(table.data.to_dict("records")):
        cells = paper[
            (paper["model"] == mapped.get(row["model"]))
            & (paper["task"] == row["task"])
            & (paper["prompt"] == row["setting"])
        ]
        if len(cells):
            cell = cells.iloc[0]
            text = f"{cell['neutral_accuracy']:.3f} ({cell['difference']:+.3f})"
            set_cell(table, position, "paper", text)
    return table


def _table8(given: ReportInput) -> Table:
    """Table 8 with the paper's accuracy for a model it maps."""
    table = convre.wrong_overlap(given.runs)
    mapped = {model: paper.lower() for model, paper in given.paper_models().items()}
    if not mapped:
        return table
    paper = reference_csv(_PACKAGE, "paper_table8.csv")
    accuracy = paper[paper["model_b"] == "accuracy"].set_index("model_a")["value"]
    for position, row in enumerate(table.data.to_dict("records")):
        model = mapped.get(str(row["model"]).removesuffix(" *").removesuffix(" (subset)"))
        if model in accuracy.index:
            set_cell(table, position, "paper_accuracy", float(accuracy[model]))
    return table


def _scaling(given: ReportInput) -> Table:
    """Scaling trends of the runs with a known size beside the paper's models."""
    if given.runs.of("convre").runs.empty:
        raise NotPossible("no ConvRe run in the folder")
    ours = scaling.run_points(given.runs, given.sizes)
    paper = scaling.paper_points(published().to_dict("records"))
    points = pd.concat([ours, paper], ignore_index=True)
    trends = with_figure(scaling.scaling_trends(points), lambda _: figures.scaling_grid(points))
    if ours.empty:
        trends.note += (
            " No run has a known model size (give sizes, or use models whose names "
            "state them, e.g. ...-135M): only the paper's figures are classified."
        )
    return trends


SECTIONS = (
    ReportSection("ConvRe Table 9", _table9),
    ReportSection("ConvRe contrasts", lambda given: convre.contrasts(given.runs)),
    ReportSection(
        "ConvRe per relation",
        lambda given: breakdowns.by_label(given.runs, "relation", "convre", "ConvRe"),
    ),
    ReportSection("ConvRe per source", _by_source),
    ReportSection("ConvRe Table 6", _table6),
    ReportSection("ConvRe Table 7", _table7),
    ReportSection("ConvRe Table 8", _table8),
    ReportSection("ConvRe scaling", _scaling),
)
"""ConvRe's sections of the report, in order."""
