"""MCR's report sections: Table 4, accuracy per category (Figure 2) and by number of relations
(Figure 3), agreement between models (Table 5) and the exemplar ablation (Table 6), each with
the paper's figures for the models ``--compare`` maps, and accuracy by number of options. The
analyses themselves are pure functions in :mod:`relreason.benchmarks.mcr.analysis`."""

from __future__ import annotations

from relreason.analysis import breakdowns, figures
from relreason.analysis.paper import reference_csv, set_cell
from relreason.analysis.sections import ReportInput, ReportSection, with_figure
from relreason.analysis.table import Table
from relreason.benchmarks.mcr import analysis as mcr

_PACKAGE = __package__ or "relreason.benchmarks.mcr"
_LISTED = "A list-valued label counts the item under each value."


def _table4(given: ReportInput) -> Table:
    table = mcr.table4(given.runs)
    return with_figure(table, lambda d: figures.heatmap(d, ["model", "method"], "language"))


def _categories(given: ReportInput) -> Table:
    table = breakdowns.by_label(given.runs, "categories", "mcr", "MCR", _LISTED)
    return with_figure(table, lambda d: figures.heatmap(d, ["run_id"], "categories"))


def _relations(given: ReportInput) -> Table:
    table = mcr.relation_counts(given.runs)
    return with_figure(
        table, lambda d: figures.lines(d, "n_relations", ["model", "language", "method"])
    )


def _table5(given: ReportInput) -> Table:
    """Table 5 with the paper's shares (Chinese, zero-shot CoT) for a pair of GPT-4 and a model
    it maps."""
    table = mcr.agreement(given.runs, given.reference)
    mapped = {model: paper.lower() for model, paper in given.paper_models().items()}
    if not mapped:
        return table
    paper = reference_csv(_PACKAGE, "paper_table5.csv")
    paper["model"] = paper["model"].str.lower()
    for position, row in enumerate(table.data.to_dict("records")):
        a, b = mapped.get(row["model_a"]), mapped.get(row["model_b"])
        other = b if a == "gpt-4" else a if b == "gpt-4" else None
        if other is None or row["language"] != "zh":
            continue
        cells = paper[paper["model"] == other]
        if len(cells) and row["method"] == "zsc":
            cell = cells.iloc[0]
            set_cell(
                table,
                position,
                "paper (both/only GPT-4/only other/neither %)",
                f"{cell['both_right']}/{cell['only_gpt4_right']}/"
                f"{cell['only_model_right']}/{cell['both_wrong']}",
            )
    return table


def _table6(given: ReportInput) -> Table:
    """Table 6 with ChatGPT's figures beside a row whose model maps to it."""
    table = mcr.exemplar_ablation(given.runs)
    mapped = {model: paper.lower() for model, paper in given.paper_models().items()}
    if not mapped:
        return table
    paper = reference_csv(_PACKAGE, "paper_table6.csv").set_index("language")
    shown = table.shown if table.shown is not None else table.data
    for position, row in enumerate(shown.to_dict("records")):
        if mapped.get(row["model"]) == "chatgpt" and row["language"] in paper.index:
            cells = paper.loc[row["language"]]
            text = f"{cells['fs']} / {cells['fs-multilingual']} / {cells['fs-english']}"
            if table.shown is not None:
                table.shown.loc[table.shown.index[position], "paper (fs / multi / en)"] = text
    return table


SECTIONS = (
    ReportSection("MCR Table 4", _table4),
    ReportSection("MCR per category", _categories),
    ReportSection("MCR relations", _relations),
    ReportSection("MCR Table 5", _table5),
    ReportSection("MCR Table 6", _table6),
    ReportSection("MCR options", lambda given: mcr.by_options(given.runs)),
)
"""MCR's sections of the report, in order."""
