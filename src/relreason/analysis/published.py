"""The papers' other published tables (ConvRe Tables 6, 7, 8; MCR Tables 5, 6), from the
benchmark packages (``benchmarks/<name>/paper_table*.csv``), set beside our rows for the models
``--compare`` maps.

Table 9 (ConvRe) and Table 4 (MCR) are in :mod:`relreason.analysis.paper`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from importlib import resources

import pandas as pd

from relreason.analysis.table import Table


def reference_table(name: str) -> pd.DataFrame:
    """Return the reference CSV ``name`` (e.g. ``convre_paper_table7.csv``) as a data frame."""
    benchmark, _, rest = name.partition("_")
    package = f"relreason.benchmarks.{benchmark}"
    text = resources.files(package).joinpath(rest).read_text("utf-8")
    return pd.read_csv(io.StringIO(text))


def _lower(compare: Mapping[str, str]) -> dict[str, str]:
    return {spec: model.lower() for spec, model in compare.items()}


def _set(table: Table, position: int, column: str, value: object) -> None:
    table.data.loc[table.data.index[position], column] = value
    if table.shown is not None:
        table.shown.loc[table.shown.index[position], column] = value


def add_paper_columns(table: Table, compare: Mapping[str, str]) -> Table:
    """Add the paper's figures to ``table`` (in place) where ``compare`` maps a row's model (as
    named in tables: see ``model_label``) to a
    paper model with a figure for the same cell; return the table. Tables without published
    counterparts are returned unchanged."""
    mapped = _lower(compare)
    if not mapped:
        return table
    if table.key == "convre_table6":
        paper = reference_table("convre_paper_table6.csv")
        for position, row in enumerate(table.data.to_dict("records")):
            if mapped.get(row["model"]) != "gpt-4":
                continue
            cells = paper[(paper["task"] == row["task"]) & (paper["prompt"] == row["setting"])]
            for dataset, column in (("complete", "paper_full"), ("subset", "paper_subset")):
                found = cells.loc[cells["dataset"] == dataset, "accuracy"]
                if len(found):
                    _set(table, position, column, float(found.iloc[0]))
    elif table.key == "convre_table7":
        paper = reference_table("convre_paper_table7.csv")
        paper["model"] = paper["model"].str.lower()
        for position, row in enumerate(table.data.to_dict("records")):
            cells = paper[
                (paper["model"] == mapped.get(row["model"]))
                & (paper["task"] == row["task"])
                & (paper["prompt"] == row["setting"])
            ]
            if len(cells):
                cell = cells.iloc[0]
                _set(
                    table,
                    position,
                    "paper",
                    f"{cell['neutral_accuracy']:.3f} ({cell['difference']:+.3f})",
                )
    elif table.key == "convre_table8":
        paper = reference_table("convre_paper_table8.csv")
        accuracy = paper[paper["model_b"] == "accuracy"].set_index("model_a")["value"]
        for position, row in enumerate(table.data.to_dict("records")):
            model = mapped.get(str(row["model"]).removesuffix(" *").removesuffix(" (subset)"))
            if model in accuracy.index:
                _set(table, position, "paper_accuracy", float(accuracy[model]))
    elif table.key == "mcr_table5":
        paper = reference_table("mcr_paper_table5.csv")
        paper["model"] = paper["model"].str.lower()
        for position, row in enumerate(table.data.to_dict("records")):
            a, b = mapped.get(row["model_a"]), mapped.get(row["model_b"])
            other = b if a == "gpt-4" else a if b == "gpt-4" else None
            if other is None or row["language"] != "zh":
                continue
            cells = paper[paper["model"] == other]
            if len(cells) and row["method"] == "zsc":
                cell = cells.iloc[0]
                _set(
                    table,
                    position,
                    "paper (both/only GPT-4/only other/neither %)",
                    f"{cell['both_right']}/{cell['only_gpt4_right']}/"
                    f"{cell['only_model_right']}/{cell['both_wrong']}",
                )
    elif table.key == "mcr_table6":
        paper = reference_table("mcr_paper_table6.csv").set_index("language")
        for position, row in enumerate(
            (table.shown if table.shown is not None else table.data).to_dict("records")
        ):
            if mapped.get(row["model"]) == "chatgpt" and row["language"] in paper.index:
                cells = paper.loc[row["language"]]
                text = f"{cells['fs']} / {cells['fs-multilingual']} / {cells['fs-english']}"
                if table.shown is not None:
                    table.shown.loc[table.shown.index[position], "paper (fs / multi / en)"] = text
    return table
