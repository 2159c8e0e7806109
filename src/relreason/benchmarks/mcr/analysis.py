"""MCR analyses: Table 4 (models x languages x methods), accuracy by number of relations
(Figure 3), agreement between models (Table 5), the exemplar-language ablation (Table 6) and
accuracy by number of options against chance. Per-category accuracy (Figure 2) is
``breakdowns.by_label(runs, "categories", "mcr", "MCR")`` (``relreason.analysis``)."""

from __future__ import annotations

import itertools
from typing import Any

import pandas as pd

from relreason.analysis.load import Runs, run_label
from relreason.analysis.setup import pick_runs
from relreason.analysis.stats import accuracy_cell, counts_cell, paired
from relreason.analysis.table import Drill, NotPossible, Table, number_text
from relreason.benchmarks.mcr.relations import count_relations

LANGUAGES = ("en", "fr", "ja", "ko", "zh")
METHODS = ("zs", "fs", "zsc", "fs-english", "fs-multilingual")
_PAIR_CELLS = (
    ("both_right", "both"),
    ("only_a_right", "only_a"),
    ("only_b_right", "only_b"),
    ("both_wrong", "neither"),
)


def _mcr(runs: Runs) -> Runs:
    part = runs.of("mcr")
    if part.runs.empty:
        raise NotPossible("no MCR run in the folder")
    return part


def table4(runs: Runs) -> Table:
    """Table 4: one row per (model, method), one column per language plus their mean (AVG,
    over the languages run), accuracy in percent as the paper shows it."""
    part = _mcr(runs)
    meta, chosen = pick_runs(part.runs, ["model", "method", "language"], "Table 4")
    data_rows, shown_rows, drill = [], [], {}
    for position, ((model, method), group) in enumerate(meta.groupby(["model", "method"])):
        row: dict[str, Any] = {"model": model, "method": method}
        accs = []
        for _, run in group.iterrows():
            cell = accuracy_cell(part.items_of(run["run_id"])["correct"])
            data_rows.append(
                {
                    "model": model,
                    "method": method,
                    "language": run["language"],
                    **cell,
                    "partial": run["partial"],
                    "run_id": run["run_id"],
                }
            )
            column = str(run["language"]).upper()
            row[column] = percent(cell["accuracy"]) + (" *" if run["partial"] else "")
            drill[(position, column)] = Drill((run["run_id"],))
            if cell["n"]:
                accs.append(cell["accuracy"])
        row["AVG"] = percent(sum(accs) / len(accs)) if accs else "-"
        drill[(position, "AVG")] = Drill(tuple(group["run_id"]))
        shown_rows.append(row)
    chance = _chance_row(part)
    if chance is not None:
        shown_rows.append(chance)
    columns = ["model", "method", "AVG", *(c.upper() for c in LANGUAGES)]
    shown = pd.DataFrame(shown_rows).reindex(columns=columns)
    note = (
        "Accuracy (%); AVG over the languages run; * a partial run. The chance row is the "
        "expected accuracy of a uniform guess (mean of 1/options; the paper's Random Guess: 25.13)."
        + "".join(" " + c for c in chosen)
    )
    return Table(
        "mcr_table4",
        "MCR: accuracy per language and method (paper Table 4)",
        pd.DataFrame(data_rows),
        shown,
        note,
        drill,
    )


def _agg(grouped: Any) -> tuple[Any, Any, Any]:
    """(keys, sums, counts) of a grouped boolean series."""
    table = grouped.agg(["sum", "count"])
    return table.index, table["sum"], table["count"]


def percent(accuracy: float) -> str:
    """An accuracy in percent to two places, as the paper shows it (``-`` for NaN)."""
    return "-" if pd.isna(accuracy) else f"{100 * accuracy:.2f}"


def _chance_row(part: Runs) -> dict[str, Any] | None:
    if "label_n_options" not in part.items.columns:
        return None
    items = part.items_with_runs(("run_id", "language"))
    items = items[items["label_n_options"].notna()].drop_duplicates(["language", "item_id"])
    if items.empty:
        return None
    row: dict[str, Any] = {"model": "chance (1/options)", "method": ""}
    chances = []
    for language, group in items.groupby("language"):
        chance = float((1 / group["label_n_options"].astype(float)).mean())
        row[str(language).upper()] = f"{100 * chance:.2f}"
        chances.append(chance)
    row["AVG"] = f"{100 * sum(chances) / len(chances):.2f}"
    return row


def relation_counts(runs: Runs) -> Table:
    """Figure 3: accuracy by the number of relations in the question (counted from its text by
    :func:`relreason.benchmarks.mcr.relations.count_relations`), per run; says how many items could
    not be counted. Needs the ``question`` column (see ``attach_texts``)."""
    part = _mcr(runs)
    if "question" not in part.items.columns or part.items["question"].isna().all():
        raise NotPossible(
            "the MCR questions are not available (the data files were not given or not found)"
        )
    items = part.items[["run_id", "question", "correct"]]
    relations = pd.Series(
        [count_relations(q) if isinstance(q, str) else None for q in items["question"]],
        index=items.index,
        dtype=float,
    )
    counted = items[relations.notna()]
    stats = counted.groupby([counted["run_id"], relations[relations.notna()].astype(int)])
    found = {key: (int(k), int(n)) for key, k, n in zip(*_agg(stats["correct"]), strict=True)}
    missing = relations.isna().groupby(items["run_id"]).sum()
    rows, shown_rows, drill = [], [], {}
    counts = sorted({int(c) for c in relations.dropna()})
    for position, (_, run) in enumerate(part.runs.iterrows()):
        row = {
            "model": run_label(run),
            "language": run["language"],
            "method": run["method"],
            "not counted": int(missing.get(run["run_id"], 0)),
        }
        for count in counts:
            k, n = found.get((run["run_id"], count), (0, 0))
            if n:
                cell = counts_cell(k, n)
                rows.append(
                    {
                        "run_id": run["run_id"],
                        "model": run["model"],
                        "language": run["language"],
                        "method": run["method"],
                        "n_relations": count,
                        **cell,
                    }
                )
                row[str(count)] = f"{number_text(cell['accuracy'])} (n={cell['n']})"
                drill[(position, str(count))] = Drill((run["run_id"],), (("n_relations", count),))
        shown_rows.append(row)
    shown = pd.DataFrame(shown_rows).reindex(
        columns=["model", "language", "method", "not counted", *map(str, counts)]
    )
    note = "Relations counted from the question text (rule in relreason.benchmarks.mcr.relations)."
    return Table(
        "mcr_relations",
        "MCR: accuracy by number of relations (paper Figure 3)",
        pd.DataFrame(rows),
        shown,
        note,
        drill,
    )


def agreement(runs: Runs, reference: str | None = None) -> Table:
    """Table 5: for each language and method run by two or more models, each pair's share of
    questions both right, only one right, both wrong, with Cohen's kappa and McNemar's p.
    With ``reference`` (a model spec) only pairs with that model are shown (the paper: GPT-4)."""
    part = _mcr(runs)
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    meta, chosen = pick_runs(part.runs, ["language", "method", "model"], "Table 5")
    for (language, method), group in meta.groupby(["language", "method"]):
        for (_, a), (_, b) in itertools.combinations(group.iterrows(), 2):
            if reference is not None and reference not in (a["model"], b["model"]):
                continue
            if reference is not None and b["model"] == reference:
                a, b = b, a
            pair = paired(
                part.items_of(a["run_id"]),
                part.items_of(b["run_id"]),
            )
            if not pair.n:
                continue
            drill[(len(rows), "model_a")] = Drill((a["run_id"],))
            drill[(len(rows), "model_b")] = Drill((b["run_id"],))
            pair_runs = (a["run_id"], b["run_id"])
            for column, cell in _PAIR_CELLS:
                drill[(len(rows), column)] = Drill(pair_runs, ids=pair.ids[cell])
            rows.append(
                {
                    "language": language,
                    "method": method,
                    "model_a": a["model"],
                    "model_b": b["model"],
                    "n": pair.n,
                    "both_right": pair.both / pair.n,
                    "only_a_right": pair.only_a / pair.n,
                    "only_b_right": pair.only_b / pair.n,
                    "both_wrong": pair.neither / pair.n,
                    "kappa": pair.kappa,
                    "p_mcnemar": pair.p_value,
                }
            )
    if not rows:
        raise NotPossible("no MCR language and method was run by two or more models (Table 5)")
    return Table(
        "mcr_table5",
        "MCR: agreement between models on the same questions (Table 5)",
        pd.DataFrame(rows),
        note=" ".join(
            [
                "Shares of the shared questions; one run per model (never a run with itself).",
                *chosen,
            ]
        ),
        drill=drill,
    )


def exemplar_ablation(runs: Runs) -> Table:
    """Table 6: 5-shot accuracy with native (fs), English (fs-english) and multilingual
    (fs-multilingual) exemplars, one row per (model, language)."""
    part = _mcr(runs)
    meta = part.runs[part.runs["method"].isin(["fs", "fs-english", "fs-multilingual"])]
    meta, chosen = pick_runs(meta, ["model", "language", "method"], "Table 6")
    rows: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for position, ((model, language), group) in enumerate(meta.groupby(["model", "language"])):
        row = {"model": model, "language": language}
        for _, run in group.iterrows():
            cell = accuracy_cell(part.items_of(run["run_id"])["correct"])
            rows.append({"model": model, "language": language, "method": run["method"], **cell})
            row[run["method"]] = percent(cell["accuracy"])
            drill[(position, run["method"])] = Drill((run["run_id"],))
        shown.append(row)
    if meta["method"].nunique() < 2:
        raise NotPossible("fewer than two of fs, fs-english, fs-multilingual were run (Table 6)")
    columns = ["model", "language", "fs", "fs-multilingual", "fs-english"]
    return Table(
        "mcr_table6",
        "MCR: exemplar language, 5-shot (paper Table 6)",
        pd.DataFrame(rows),
        pd.DataFrame(shown).reindex(columns=columns),
        " ".join(["Accuracy (%): native (fs), multilingual, English exemplars.", *chosen]),
        drill,
    )


def by_options(runs: Runs) -> Table:
    """Accuracy by number of options, beside each count's chance level (1 / options)."""
    part = _mcr(runs)
    if "label_n_options" not in part.items.columns:
        raise NotPossible("no MCR record has the n_options label")
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for _, run in part.runs.iterrows():
        mine = part.items_of(run["run_id"])
        for count, group in mine.groupby("label_n_options"):
            cell = accuracy_cell(group["correct"])
            drill[(len(rows), "accuracy")] = Drill(
                (run["run_id"],), (("label_n_options", int(count)),)
            )
            rows.append(
                {
                    "model": run_label(run),
                    "language": run["language"],
                    "method": run["method"],
                    "n_options": int(count),
                    "n": cell["n"],
                    "accuracy": cell["accuracy"],
                    "chance": 1 / int(count),
                    "above_chance": cell["accuracy"] - 1 / int(count),
                }
            )
    return Table(
        "mcr_options",
        "MCR: accuracy by number of options vs chance",
        pd.DataFrame(rows),
        drill=drill,
    )
