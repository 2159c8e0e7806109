"""ConvRe analyses: the Table 9 matrix, paired contrasts between settings, accuracy per relation
or source, subset vs full set (Table 6), neutral vs normal naming (Table 7) and the wrong-answer
overlap between models (Table 8). Each takes :class:`Runs` and returns a :class:`Table` or raises
:class:`NotPossible` saying why the runs do not allow it."""

from __future__ import annotations

import itertools
from typing import Any

import pandas as pd

from relreason.analysis.load import Runs, by_run, run_label
from relreason.analysis.setup import pick_runs
from relreason.analysis.stats import accuracy_cell, paired
from relreason.analysis.table import Drill, NotPossible, Table, number_text

SETTINGS = tuple(range(1, 13))
KNOBS = ("relation", "text_type", "example_type", "prompt", "n_shot")
_ORDER = {
    "relation": ["normal", "converse"],
    "text_type": ["regular", "hard"],
    "example_type": ["regular", "hard"],
    "prompt": ["normal", "hint", "hint+cot"],
}


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


def _convre(runs: Runs) -> Runs:
    part = runs.of("convre")
    if part.runs.empty:
        raise NotPossible("no ConvRe run in the folder")
    return part


def accuracy_text(cell: dict[str, Any]) -> str:
    """``0.523 [0.50, 0.55]``: an accuracy with its Wilson interval (``-`` for no items)."""
    if not cell["n"] or pd.isna(cell["accuracy"]):
        return "-"
    return f"{cell['accuracy']:.3f} [{cell['lo']:.2f}, {cell['hi']:.2f}]"


def _acc(runs: Runs, run_id: str) -> dict[str, Any]:
    return accuracy_cell(runs.items_of(run_id)["correct"])


def table9(runs: Runs) -> Table:
    """The Table 9 matrix: one row per (task, model, subset), one column per paper setting 1-12,
    each cell the accuracy with its Wilson 95% interval. Neutral runs are left out (Table 7)."""
    part = _convre(runs)
    meta = part.runs[(~part.runs["neutral"]) & part.runs["setting"].notna()]
    if meta.empty:
        raise NotPossible("no ConvRe run of a paper setting (1-12) without neutral naming")
    meta, chosen = pick_runs(meta, ["task", "model", "subset", "setting"], "Table 9")
    data_rows = []
    for _, run in meta.iterrows():
        cell = _acc(part, run["run_id"])
        data_rows.append(
            {
                "task": run["task"],
                "model": run["model"],
                "subset": run["subset"],
                "setting": int(run["setting"]),
                **cell,
                "partial": run["partial"],
                "limit": run["limit"],
                "run_id": run["run_id"],
            }
        )
    data = pd.DataFrame(data_rows).sort_values(["task", "model", "subset", "setting"])
    shown_rows, drill = [], {}
    for position, ((task, model, subset), group) in enumerate(
        data.groupby(["task", "model", "subset"], sort=True)
    ):
        row: dict[str, Any] = {"task": task, "model": model + (" (subset)" if subset else "")}
        for _, cell in group.iterrows():
            column = f"{cell['setting']}#"
            mark = " *" if cell["partial"] else ""
            row[column] = accuracy_text(cell) + mark
            drill[(position, column)] = Drill((cell["run_id"],))
        shown_rows.append(row)
    run = set(data["setting"])  # settings no run filled are left out
    columns = ["task", "model"] + [f"{s}#" for s in SETTINGS if s in run]
    shown = pd.DataFrame(shown_rows).reindex(columns=columns)
    note = " ".join(
        [
            "Accuracy [Wilson 95% interval]; * a partial run (a limit, a sample, or not finished);",
            "'-' nothing answered.",
            settings_legend(data["setting"]),
            *chosen,
        ]
    )
    return Table(
        "convre_table9",
        "ConvRe: accuracy per setting (paper Table 9)",
        data.reset_index(drop=True),
        shown,
        note,
        drill,
    )


def _knobs(run: Any) -> dict[str, Any]:
    knobs = {k: run[k] for k in KNOBS}
    if knobs["n_shot"] is not None and not pd.isna(knobs["n_shot"]):
        knobs["n_shot"] = int(knobs["n_shot"])
    return knobs


def _ordered(knob: str, a: Any, b: Any) -> bool:
    order = _ORDER.get(knob)
    if order is None:
        return bool(a < b)
    return order.index(a) < order.index(b) if a in order and b in order else str(a) < str(b)


def contrasts(runs: Runs) -> Table:
    """Paired contrasts: every two runs of one model, task, subset and naming whose settings
    differ in exactly one knob (normal vs converse relation, regular vs hard text or examples,
    hint, shots), compared on the same triples with McNemar's exact test."""
    part = _convre(runs)
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    groups = part.runs.groupby(["model", "task", "subset", "neutral"], sort=True)
    for (model, task, subset, neutral), group in groups:
        for (_, a), (_, b) in itertools.combinations(group.iterrows(), 2):
            ka, kb = _knobs(a), _knobs(b)
            differing = [k for k in KNOBS if ka[k] != kb[k]]
            if len(differing) != 1:
                continue
            knob = differing[0]
            if not _ordered(knob, ka[knob], kb[knob]):
                a, b, ka, kb = b, a, kb, ka
            items_a = part.items_of(a["run_id"])
            items_b = part.items_of(b["run_id"])
            pair = paired(items_a, items_b)
            acc_a = (pair.both + pair.only_a) / pair.n if pair.n else float("nan")
            acc_b = (pair.both + pair.only_b) / pair.n if pair.n else float("nan")
            both = (a["run_id"], b["run_id"])
            drill[(len(rows), "from")] = Drill((a["run_id"],))
            drill[(len(rows), "to")] = Drill((b["run_id"],))
            drill[(len(rows), "only_from")] = Drill(both, ids=pair.ids["only_a"])
            drill[(len(rows), "only_to")] = Drill(both, ids=pair.ids["only_b"])
            rows.append(
                {
                    "model": model,
                    "task": task,
                    "subset": subset,
                    "neutral": neutral,
                    "knob": knob,
                    "from": f"{ka[knob]} ({_sid(a)})",
                    "to": f"{kb[knob]} ({_sid(b)})",
                    "n": pair.n,
                    "acc_from": acc_a,
                    "acc_to": acc_b,
                    "diff": acc_b - acc_a,
                    "only_from": pair.only_a,
                    "only_to": pair.only_b,
                    "p_mcnemar": pair.p_value,
                    "partial": bool(a["partial"] or b["partial"]),
                }
            )
    if not rows:
        raise NotPossible(
            "no two ConvRe runs of one model and task whose settings differ in exactly one knob "
            "(e.g. settings 1 and 3: normal vs converse)"
        )
    note = (
        "Paired on the same triples; p: McNemar's exact two-sided test on discordant triples. "
        + settings_legend(part.runs["setting"])
    )
    return Table(
        "convre_contrasts",
        "ConvRe: paired contrasts between settings",
        pd.DataFrame(rows),
        note=note,
        drill=drill,
    )


def _sid(run: Any) -> str:
    setting = run["setting"]
    return f"{int(setting)}#" if pd.notna(setting) else "custom"


def _pairs_on(part: Runs, flag: str) -> list[tuple[Any, Any]]:
    found = []
    meta = part.runs
    others = [c for c in ("model", "task", "setting", "subset", "neutral") if c != flag]
    for _, group in meta[meta["setting"].notna()].groupby(others, dropna=False):
        base = group[~group[flag]]
        alt = group[group[flag]]
        found += [(b, a) for (_, b), (_, a) in itertools.product(base.iterrows(), alt.iterrows())]
    return found


def subset_vs_full(runs: Runs) -> Table:
    """Table 6: for each model, task and setting run on both the full set and the 328-triple
    subset, both accuracies and their difference."""
    part = _convre(runs)
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for full, sub in _pairs_on(part, "subset"):
        a, b = _acc(part, full["run_id"]), _acc(part, sub["run_id"])
        drill[(len(rows), "full")] = Drill((full["run_id"],))
        drill[(len(rows), "subset")] = Drill((sub["run_id"],))
        rows.append(
            {
                "model": full["model"],
                "task": full["task"],
                "setting": int(full["setting"]),
                "neutral": bool(full["neutral"]),
                "full": a["accuracy"],
                "n_full": a["n"],
                "subset": b["accuracy"],
                "n_subset": b["n"],
                "diff": b["accuracy"] - a["accuracy"],
                "partial": bool(full["partial"] or sub["partial"]),
            }
        )
    if not rows:
        raise NotPossible("no setting was run on both the full set and the subset (Table 6)")
    return Table(
        "convre_table6",
        "ConvRe: full set vs subset (paper Table 6)",
        pd.DataFrame(rows),
        drill=drill,
    )


def neutral_vs_normal(runs: Runs) -> Table:
    """Table 7: accuracy with the neutral name "relation R", and in parentheses its difference
    from normal naming under the same setting on the same triples (paired McNemar p beside)."""
    part = _convre(runs)
    rows: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for normal, neutral in _pairs_on(part, "neutral"):
        pair = paired(
            part.items_of(normal["run_id"]),
            part.items_of(neutral["run_id"]),
        )
        acc_normal = (pair.both + pair.only_a) / pair.n if pair.n else float("nan")
        acc_neutral = (pair.both + pair.only_b) / pair.n if pair.n else float("nan")
        diff = acc_neutral - acc_normal
        drill[(len(rows), "neutral (diff)")] = Drill((neutral["run_id"],))
        drill[(len(rows), "normal")] = Drill((normal["run_id"],))
        base = {
            "model": neutral["model"],
            "task": neutral["task"],
            "setting": int(neutral["setting"]),
            "subset": bool(neutral["subset"]),
        }
        rows.append(
            {
                **base,
                "n": pair.n,
                "normal": acc_normal,
                "neutral": acc_neutral,
                "diff": diff,
                "p_mcnemar": pair.p_value,
            }
        )
        shown.append(
            {
                **base,
                "neutral (diff)": f"{number_text(acc_neutral)} ({number_text(diff, signed=True)})",
                "normal": acc_normal,
                "p": pair.p_value,
            }
        )
    if not rows:
        raise NotPossible("no setting was run both with neutral naming and without (Table 7)")
    return Table(
        "convre_table7",
        'ConvRe: neutral "relation R" vs normal naming (paper Table 7)',
        pd.DataFrame(rows),
        pd.DataFrame(shown),
        drill=drill,
    )


def wrong_overlap(
    runs: Runs, relation: str = "hypernym", task: str = "re2text", setting: int = 4
) -> Table:
    """Table 8: on one relation, task and setting, each model's accuracy and, for each pair of
    models, the share of the relation's triples both answered wrongly (of all its triples)."""
    part = _convre(runs)
    meta = part.runs[
        (part.runs["task"] == task) & (part.runs["setting"] == setting) & ~part.runs["neutral"]
    ]
    if "label_relation" not in part.items.columns:
        raise NotPossible("the ConvRe records have no relation label")
    items = part.items[part.items["label_relation"] == relation]
    if meta["subset"].nunique() > 1:  # compare like with like: the full set when it was run
        full = meta[~meta["subset"]]
        meta = full if full["model"].nunique() >= 2 else meta[meta["subset"]]
    wrong: dict[str, set[str]] = {}
    totals: dict[str, int] = {}
    runs_of: dict[str, str] = {}
    groups = by_run(items)
    for _, run in meta.sort_values(["n_records", "failed"], ascending=[False, True]).iterrows():
        mine = groups.get(run["run_id"], items.iloc[0:0])
        if mine.empty:
            continue
        name = run_label(run) + (" (subset)" if run["subset"] else "")
        if name in wrong:  # runs come most items first: the fullest run of a model is kept
            continue
        wrong[name] = set(mine.loc[~mine["correct"].astype(bool), "item_id"])
        totals[name] = len(mine)
        runs_of[name] = run["run_id"]
    if len(wrong) < 2:
        raise NotPossible(
            f"fewer than two models ran {task} setting {setting}# on relation {relation!r} "
            "(Table 8 needs two or more)"
        )
    names = sorted(wrong)
    rows: list[dict[str, Any]] = []
    drill: dict[tuple[int, str], Drill] = {}
    for position, a in enumerate(names):
        row: dict[str, Any] = {"model": a, "accuracy": 1 - len(wrong[a]) / totals[a]}
        drill[(position, "accuracy")] = Drill((runs_of[a],), (("label_relation", relation),))
        for b in names:
            row[b] = None if a == b else len(wrong[a] & wrong[b]) / totals[a]
            if a != b:
                shared = tuple(sorted(wrong[a] & wrong[b]))
                drill[(position, b)] = Drill((runs_of[a], runs_of[b]), ids=shared)
        rows.append(row)
    title = f"ConvRe: wrong-answer overlap on {relation}, {task} {setting}# (paper Table 8)"
    note = "Cells: share of the relation's triples that both models answered wrongly (click: them)."
    return Table("convre_table8", title, pd.DataFrame(rows), note=note, drill=drill)
